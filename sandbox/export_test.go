package sandbox

// Diff names the first few objects two inventories do not hold alike,
// for a test's failure message.
func (inv Inventory) Diff(other Inventory) string { return inv.diff(other) }
