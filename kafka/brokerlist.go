package kafka

import (
	"os"
	"strings"

	"github.com/kgwatch/kgwatch/model"
)

// DefaultBrokers is the broker list when --brokers is not given:
// $KAFKA_BROKERS, else localhost:9092.
func DefaultBrokers() string {
	if b := os.Getenv("KAFKA_BROKERS"); b != "" {
		return b
	}
	return "localhost:9092"
}

// ParseBrokers reads a broker list (--brokers, or $KAFKA_BROKERS as
// name): comma separated, each address made host:port by ParseBroker,
// duplicates dropped. Its errors are model.UsageErrors naming name.
func ParseBrokers(s, name string) ([]string, error) {
	var out []string
	seen := make(map[string]bool)
	for _, p := range SplitList(s) {
		a, err := ParseBroker(p)
		if err != nil {
			return nil, model.Usagef("%s: %v", name, err)
		}
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, model.UsageError{Msg: name + " is empty"}
	}
	return out, nil
}

// SplitList splits a comma-separated flag value, dropping the spaces
// around each item and the empty ones.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
