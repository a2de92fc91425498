package kafka

import (
	"errors"
	"strings"
	"testing"

	"github.com/kgwatch/kgwatch/model"
)

func TestParseBrokers(t *testing.T) {
	got, err := ParseBrokers(" [::1], ::1 ,kafka,kafka:9092,[2001:db8::1]:19092,", "--brokers")
	want := []string{"[::1]:9092", "kafka:9092", "[2001:db8::1]:19092"}
	if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ParseBrokers = %q, %v; want %q", got, err, want)
	}
	for _, s := range []string{" , ", "kafka:99999"} {
		_, err := ParseBrokers(s, "$KAFKA_BROKERS")
		var ue model.UsageError
		if !errors.As(err, &ue) || !strings.HasPrefix(ue.Msg, "$KAFKA_BROKERS") {
			t.Errorf("ParseBrokers(%q) = %v, want a usage error naming $KAFKA_BROKERS", s, err)
		}
	}
}
