package kafka

import (
	"errors"
	"fmt"
	"strings"

	kafka "github.com/segmentio/kafka-go"
)

// Broker error codes. kafka-go's kafka.Error writes a code as "[N] Title:
// Description"; for a code it does not know, both are empty and the text is
// "[32767] : ", which says nothing. kgwatch writes such a code as "error
// code 32767 (unknown to kgwatch)", and keeps kafka.Error underneath so
// errors.Is still matches it.

// errCode is the error for a broker's nonzero error code.
func errCode(code int16) error {
	if e := kafka.Error(code); e.Title() != "" {
		return e
	}
	return unknownCode(code)
}

// unknownCode is an error code kafka-go has no text for.
type unknownCode int16

func (c unknownCode) Error() string {
	return fmt.Sprintf("error code %d (unknown to kgwatch)", int16(c))
}

func (c unknownCode) Unwrap() error { return kafka.Error(c) }

// errText is a short, one-line description of a broker error code.
func errText(code int16) string {
	if t := kafka.Error(code).Title(); t != "" {
		return t
	}
	return unknownCode(code).Error()
}

// namedCodes rewrites, in err's text, a kafka.Error that kafka-go made
// itself (its ApiVersions negotiation on a new connection) and has no text
// for, as errCode would have written it. err is kept underneath.
func namedCodes(err error) error {
	var e kafka.Error
	if err == nil || !errors.As(err, &e) || e.Title() != "" {
		return err
	}
	msg := err.Error()
	if !strings.Contains(msg, e.Error()) {
		return err
	}
	return &renamedErr{msg: strings.Replace(msg, e.Error(), unknownCode(e).Error(), 1), err: err}
}

// renamedErr is err with another text.
type renamedErr struct {
	msg string
	err error
}

func (e *renamedErr) Error() string { return e.msg }
func (e *renamedErr) Unwrap() error { return e.err }
