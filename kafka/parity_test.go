package kafka

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kgwatch/kgwatch/model"
)

// tableRows parses a --once table into its header and rows, by column
// name; cells hold no spaces (ids, hosts, numbers, assignments), and the
// one header with a space, "COORDINATOR (ID)", is read as one.
func tableRows(t *testing.T, table string) (header []string, rows []map[string]string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		if line == "" {
			break // the table ends; notes follow
		}
		cells := strings.Fields(strings.ReplaceAll(line, "COORDINATOR (ID)", "COORDINATOR-(ID)"))
		if header == nil {
			header = cells
			continue
		}
		// The coordinator reads "host:port (id)", as kafka-consumer-groups
		// prints it: one cell.
		if i := slices.Index(header, "COORDINATOR-(ID)"); i >= 0 && i+1 < len(cells) && strings.HasPrefix(cells[i+1], "(") {
			cells = slices.Concat(cells[:i], []string{cells[i] + " " + cells[i+1]}, cells[i+2:])
		}
		if len(cells) != len(header) {
			t.Fatalf("row %q has %d cells, header %v %d", line, len(cells), header, len(header))
		}
		row := map[string]string{}
		for i, c := range cells {
			row[header[i]] = c
		}
		rows = append(rows, row)
	}
	return header, rows
}

// wantHeader fails unless header is want, kafka-consumer-groups' words
// and order, then kgwatch's own columns (extra).
func wantHeader(t *testing.T, view string, header, want []string, extra ...string) {
	t.Helper()
	if !slices.Equal(header, append(want, extra...)) {
		t.Errorf("%s header %v, want %v then %v", view, header, want, extra)
	}
}

// --once's verbose views of a consumer-protocol group (kgo members,
// ServerSideBalancer) print the epochs and assignments
// kafka-consumer-groups --describe --verbose prints, agreeing with the
// JSON and with an outside ConsumerGroupDescribe.
func TestOnceVerboseConsumerGroup(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, true, fast848())
	const group, topic = "parity848", "orders"
	tc.createTopic(t, topic, 4)
	tc.produceEach(t, topic, 4, 3, time.Now())
	commits := []kgo.Opt{kgo.AutoCommitInterval(100 * time.Millisecond), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}
	tc.consumer848(t, group, "consumer-a", []string{topic}, commits...)
	tc.consumer848(t, group, "consumer-b", []string{topic}, commits...)
	w := newTestWatcher(t, tc, group)
	s := pollUntil(t, w, "two reconciled members, everything committed", func(s model.Snapshot) bool {
		if len(s.Members) != 2 || s.Group.State != model.StateStable {
			return false
		}
		for _, m := range s.Members {
			if m.Reconciling || len(m.Partitions) != 2 {
				return false
			}
		}
		for _, p := range s.Partitions {
			if p.Committed != 3 {
				return false
			}
		}
		return true
	})
	target, assigned, epochs := tc.describe848(t, group)
	var j model.JSONSnapshot
	b, _ := model.MarshalJSONSnapshot(s)
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}

	header, rows := tableRows(t, model.FormatTableView(s, model.TableView{State: true, Verbose: true}))
	wantHeader(t, "--state --verbose", header, []string{"GROUP", "COORDINATOR-(ID)", "ASSIGNMENT-STRATEGY", "STATE", "GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH", "#MEMBERS"})
	if len(rows) != 1 || rows[0]["GROUP-EPOCH"] != strconv.Itoa(int(*j.GroupEpoch)) ||
		rows[0]["TARGET-ASSIGNMENT-EPOCH"] != strconv.Itoa(int(target)) || *j.AssignmentEpoch != target || rows[0]["#MEMBERS"] != "2" {
		t.Errorf("--state --verbose %v; JSON epochs %d/%d, ConsumerGroupDescribe's target %d", rows, *j.GroupEpoch, *j.AssignmentEpoch, target)
	}
	if c := rows[0]["COORDINATOR-(ID)"]; c != fmt.Sprintf("%s (%d)", s.Group.Coordinator, s.Group.CoordinatorID) || !strings.HasSuffix(c, ")") {
		t.Errorf("--state coordinator %q, want host:port (id) as kafka-consumer-groups prints it", c)
	}
	if header, _ := tableRows(t, model.FormatTableView(s, model.TableView{State: true})); !slices.Equal(header, []string{"GROUP", "COORDINATOR-(ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS"}) {
		t.Errorf("--state header %v", header)
	}

	members := model.FormatTableView(s, model.TableView{Members: true, Verbose: true})
	t.Log(members)
	header, rows = tableRows(t, members)
	wantHeader(t, "--members --verbose", header, []string{"GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"})
	if len(rows) != 2 {
		t.Fatalf("--members --verbose rows %v", rows)
	}
	for _, r := range rows {
		id := r["CONSUMER-ID"]
		want := topic + ":" + joinPartitions(assigned[id])
		if r["CURRENT-EPOCH"] != strconv.Itoa(int(epochs[id])) || r["CURRENT-ASSIGNMENT"] != want ||
			r["TARGET-ASSIGNMENT"] != want || r["TARGET-EPOCH"] != strconv.Itoa(int(target)) || r["#PARTITIONS"] != "2" {
			t.Errorf("member row %v; ConsumerGroupDescribe: epoch %d, assignment %s, target epoch %d", r, epochs[id], want, target)
		}
	}

	header, rows = tableRows(t, model.FormatTableView(s, model.TableView{Verbose: true}))
	wantHeader(t, "--offsets --verbose", header, []string{"GROUP", "TOPIC", "PARTITION", "LEADER-EPOCH", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"}, "LAG-AGE", "STATUS")
	for i, r := range rows {
		jp := j.Partitions[i]
		if jp.LeaderEpoch == nil || r["LEADER-EPOCH"] != strconv.Itoa(int(*jp.LeaderEpoch)) || r["CURRENT-OFFSET"] != "3" {
			t.Errorf("offsets row %v; JSON leader_epoch %v", r, jp.LeaderEpoch)
		}
	}
}

func joinPartitions(tps []model.TopicPartition) string {
	var ps []string
	for _, tp := range tps {
		ps = append(ps, strconv.Itoa(int(tp.Partition)))
	}
	return strings.Join(ps, ",")
}

// A classic group's members (kgo, cooperative-sticky) show in --members
// --verbose what they owned as they joined (their subscription's owned
// partitions, KIP-429) beside what they were assigned, as the JSON's
// owned_partitions says; the second member to join owned nothing, the
// first what it owned before.
func TestOnceVerboseClassicMembers(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, true)
	const group, topic = "parity-classic", "orders"
	tc.createTopic(t, topic, 4)
	tc.classicKgo(t, group, "consumer-a", topic, kgo.InstanceID("worker-a"))
	w := newTestWatcher(t, tc, group)
	pollUntil(t, w, "consumer-a owning all four", func(s model.Snapshot) bool {
		return s.Group.State == model.StateStable && len(s.Members) == 1 && len(s.Members[0].Partitions) == 4
	})
	tc.classicKgo(t, group, "consumer-b", topic)
	s := pollUntil(t, w, "two members owning two each", func(s model.Snapshot) bool {
		return s.Group.State == model.StateStable && len(s.Members) == 2 &&
			len(s.Members[0].Partitions) == 2 && len(s.Members[1].Partitions) == 2
	})
	var j model.JSONSnapshot
	b, _ := model.MarshalJSONSnapshot(s)
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	members := model.FormatTableView(s, model.TableView{Members: true, Verbose: true})
	t.Log(members)
	header, rows := tableRows(t, members)
	wantHeader(t, "--members --verbose", header, []string{"GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "ASSIGNMENT"}, "OWNED-PARTITIONS")
	if len(rows) != 2 {
		t.Fatalf("rows %v", rows)
	}
	for i, r := range rows {
		jm := j.Members[i]
		if jm.OwnedPartitions == nil {
			t.Fatalf("member %s: no owned_partitions in JSON %s", jm.ClientID, b)
		}
		owned := "-"
		if len(*jm.OwnedPartitions) > 0 {
			owned = topic + ":" + joinPartitions(*jm.OwnedPartitions)
		}
		if r["OWNED-PARTITIONS"] != owned || r["ASSIGNMENT"] != topic+":"+joinPartitions(jm.Partitions) || r["CLIENT-ID"] != jm.ClientID {
			t.Errorf("row %v; JSON owned %v, partitions %v", r, *jm.OwnedPartitions, jm.Partitions)
		}
		switch jm.ClientID {
		case "consumer-a":
			// It kept two of its four through the join: it owned them all,
			// or (the revoke round seen) the two it kept.
			if r["GROUP-INSTANCE-ID"] != "worker-a" || len(*jm.OwnedPartitions) < 2 {
				t.Errorf("consumer-a row %v: want instance worker-a, owning what it kept", r)
			}
		case "consumer-b":
			if r["GROUP-INSTANCE-ID"] != "-" {
				t.Errorf("consumer-b row %v: want no instance id", r)
			}
		}
	}
	if !s.Group.Cooperative {
		t.Errorf("group not cooperative: %s", fmt.Sprint(s.Group))
	}
}
