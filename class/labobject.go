package class

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/labhub/labmate/content"
)

// The class's lab travels the other way from the records: the instructor
// stores one packed lab (whatever bytes the caller packed; this package
// does not open them) in the class namespace, as one ConfigMap named
// LabObject, and every learner may get and watch exactly that object.
// A learner's labmate checks the bytes against the digest stored beside
// them before it hands them on, so bytes changed behind the instructor's
// back (the object edited, a copy gone wrong) are refused.

const (
	// LabObject is the name of the ConfigMap carrying the class's lab. It
	// holds no dot, so it can never be read as a record (<learner>.<lab>).
	LabObject = "labmate-lab"
	// LabArchiveKey is the binaryData key holding the packed lab.
	LabArchiveKey = "lab.tar.gz"
	// LabelClassLab marks the lab object ("true").
	LabelClassLab = "labmate.dev/class-lab"
	// Annotations of the lab object: the lab's ID and version, and the
	// sha256 (hex) of the archive's bytes. Annotations, not labels: a
	// sha256 in hex is 64 characters, one more than a label value may be.
	AnnotationLabID      = "labmate.dev/lab-id"
	AnnotationLabVersion = "labmate.dev/lab-version"
	AnnotationLabSum     = "labmate.dev/lab-sha256"
	// AnnotationLabBuiltin ("true") marks a lab object that names a lab
	// labmate has built in and carries no archive: a lab with Go of its
	// own cannot travel, and every learner's labmate has it already.
	AnnotationLabBuiltin = "labmate.dev/lab-builtin"

	// MaxLabBytes is the largest archive one object can carry: the API
	// server refuses a ConfigMap whose keys and values together pass
	// 1 MiB.
	MaxLabBytes = 1<<20 - len(LabArchiveKey)
	// maxVersionBytes bounds a lab version as the class carries it.
	maxVersionBytes = 128
)

// LabArchive is a packed lab as the class carries it, or (Builtin) the
// name of a built-in lab the class is for.
type LabArchive struct {
	ID      string
	Version string
	// Sum is the sha256 of Bytes, hex.
	Sum   string
	Bytes []byte
	// Builtin: the class names a lab built into labmate and carries no
	// bytes; Version is the instructor's labmate's version of it.
	Builtin bool
}

// NamedLab is the lab object's content for a built-in lab the class is
// for and does not carry.
func NamedLab(id, version string) LabArchive {
	return LabArchive{ID: id, Version: version, Builtin: true}
}

// NewLabArchive wraps packed bytes with their digest.
func NewLabArchive(id, version string, b []byte) LabArchive {
	return LabArchive{ID: id, Version: version, Sum: Digest(b), Bytes: b}
}

// Digest is the sha256 of b in hex, as `lab pack` prints it.
func Digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// LabTooBig refuses a lab that does not fit in one object.
type LabTooBig struct{ Size int }

func (e LabTooBig) Error() string {
	return content.Msg("class.lab.too_big", "size", ByteSize(e.Size), "max", ByteSize(MaxLabBytes+len(LabArchiveKey)))
}

// LabTampered refuses a lab object whose bytes are not the ones its
// digest names.
type LabTampered struct{ Want, Got string }

func (e LabTampered) Error() string {
	return content.Msg("class.lab.tampered", "want", short(e.Want), "got", short(e.Got))
}

// LabUnreadable refuses a lab object that lacks what StoreLab writes
// (the archive, its ID, its digest) or breaks a bound.
type LabUnreadable struct{ What string }

func (e LabUnreadable) Error() string { return content.Msg("class.lab.unreadable", "what", e.What) }

// LabBadID refuses a lab ID that cannot name a record object.
type LabBadID struct{ ID string }

func (e LabBadID) Error() string { return content.Msg("class.lab.bad_id", "id", e.ID) }

// ErrNoLab says the class carries no lab (no lab object, or a class made
// before labs travelled, whose Role does not let the learner read it).
var ErrNoLab = errors.New("the class carries no lab")

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}

// ByteSize words a size for a message: bytes, KiB or MiB, one decimal.
func ByteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// validLabID: the ID ends record object names (<learner>.<lab>) and the
// lab label.
func validLabID(id string) bool {
	return id != "" && len(validation.IsDNS1123Subdomain("x."+id)) == 0 && len(validation.IsValidLabelValue(id)) == 0
}

// Check refuses an archive the class cannot carry: too big for one
// object, an ID that cannot name objects, a version that is not one
// line of text.
func (a LabArchive) Check() error {
	switch {
	case a.Builtin && len(a.Bytes) > 0:
		return LabUnreadable{What: AnnotationLabBuiltin}
	case len(a.Bytes) > MaxLabBytes:
		return LabTooBig{Size: len(a.Bytes)}
	case !validLabID(a.ID):
		return LabBadID{ID: a.ID}
	case len(a.Version) > maxVersionBytes || !printable(a.Version):
		return LabUnreadable{What: "version"}
	}
	return nil
}

// ReadLabObject is the lab a lab object carries, refused unless its bytes
// hash to the digest beside them; or the built-in lab it names.
func ReadLabObject(o *corev1.ConfigMap) (LabArchive, error) {
	a := LabMeta(o)
	if a.Builtin {
		switch {
		case !validLabID(a.ID):
			return LabArchive{}, LabBadID{ID: a.ID}
		case len(a.Version) > maxVersionBytes || !printable(a.Version):
			return LabArchive{}, LabUnreadable{What: AnnotationLabVersion}
		}
		return a, nil
	}
	b, ok := o.BinaryData[LabArchiveKey]
	switch {
	case !ok:
		return LabArchive{}, LabUnreadable{What: LabArchiveKey}
	case len(b) > MaxLabBytes:
		return LabArchive{}, LabTooBig{Size: len(b)}
	case !validLabID(a.ID):
		return LabArchive{}, LabBadID{ID: a.ID}
	case len(a.Version) > maxVersionBytes || !printable(a.Version):
		return LabArchive{}, LabUnreadable{What: AnnotationLabVersion}
	case len(a.Sum) != sha256.Size*2:
		return LabArchive{}, LabUnreadable{What: AnnotationLabSum}
	}
	if got := Digest(b); got != a.Sum {
		return LabArchive{}, LabTampered{Want: a.Sum, Got: got}
	}
	a.Bytes = b
	return a, nil
}

// LabMeta is what a lab object says of its lab, without the bytes.
func LabMeta(o *corev1.ConfigMap) LabArchive {
	return LabArchive{ID: o.Annotations[AnnotationLabID], Version: o.Annotations[AnnotationLabVersion], Sum: o.Annotations[AnnotationLabSum],
		Builtin: o.Annotations[AnnotationLabBuiltin] == "true"}
}
