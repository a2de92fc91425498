package ui

import "github.com/kgwatch/kgwatch/model"

// glyphHighlight marks, in the table's gutter and the lanes, the
// partitions the selected timeline event touched.
const glyphHighlight = "◆"

// highlightSet turns a partition list into a set; nil for none.
func highlightSet(tps []model.TopicPartition) map[model.TopicPartition]bool {
	if len(tps) == 0 {
		return nil
	}
	m := make(map[model.TopicPartition]bool, len(tps))
	for _, tp := range tps {
		m[tp] = true
	}
	return m
}

// SetHighlight marks the given partitions in the gutter (the ones the
// selected timeline event touched); nil clears.
func (t *Table) SetHighlight(tps []model.TopicPartition) { t.highlight = highlightSet(tps) }
