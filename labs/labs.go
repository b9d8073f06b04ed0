// Package labs lists the labs whose steps need Go code of their own (the
// escape hatch of the authoring kit). A lab made only of data needs no
// entry: its directory under content/labs is the whole lab.
package labs

import (
	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/labs/gpuincident"
)

// Code is every lab's Go checks.
var Code = []checks.Code{gpuincident.Code}
