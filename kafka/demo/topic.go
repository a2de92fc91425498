package demo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/segmentio/kafka-go"
)

// ensureTopic creates the demo topic unless it exists and learns its
// partition count.
func (d *Demo) ensureTopic(ctx context.Context) error {
	meta, err := d.admin.Metadata(ctx, &kafka.MetadataRequest{})
	if err != nil {
		return fmt.Errorf("metadata from %v: %w", d.brokers, err)
	}
	rf := min(3, len(meta.Brokers))
	for _, t := range meta.Topics {
		if t.Name == d.cfg.Topic && t.Error == nil {
			return d.waitTopic(ctx)
		}
	}
	resp, err := d.admin.CreateTopics(ctx, &kafka.CreateTopicsRequest{
		Topics: []kafka.TopicConfig{{
			Topic:             d.cfg.Topic,
			NumPartitions:     d.cfg.Partitions,
			ReplicationFactor: rf,
		}},
	})
	if err != nil {
		return fmt.Errorf("create topic %q: %w", d.cfg.Topic, err)
	}
	if err := resp.Errors[d.cfg.Topic]; err != nil && !errors.Is(err, kafka.TopicAlreadyExists) {
		return fmt.Errorf("create topic %q: %w", d.cfg.Topic, err)
	}
	return d.waitTopic(ctx)
}

// waitTopic waits until every partition of the topic has a leader.
func (d *Demo) waitTopic(ctx context.Context) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		meta, err := d.admin.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{d.cfg.Topic}})
		if err == nil && len(meta.Topics) == 1 && meta.Topics[0].Error == nil && len(meta.Topics[0].Partitions) > 0 {
			ready := true
			for _, p := range meta.Topics[0].Partitions {
				if p.Leader.Host == "" {
					ready = false
				}
			}
			if ready {
				d.partCount = len(meta.Topics[0].Partitions)
				return nil
			}
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = errors.New("partitions have no leader")
			}
			return fmt.Errorf("wait for topic %q: %w", d.cfg.Topic, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for topic %q: %w", d.cfg.Topic, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
