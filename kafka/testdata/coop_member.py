# A librdkafka (confluent_kafka) member of a classic group, assigning
# cooperative-sticky: it polls until its stdin closes, then leaves. It
# takes REVOKE_DELAY seconds to give partitions up (its on_revoke), so
# the revoke phase's Stable generation lasts long enough to be polled.
# Usage: coop_member.py BOOTSTRAP GROUP TOPIC CLIENT_ID REVOKE_DELAY
import select
import sys
import time

from confluent_kafka import Consumer

bootstrap, group, topic, client_id = sys.argv[1:5]
revoke_delay = float(sys.argv[5])
closing = False


def on_revoke(consumer, partitions):
    if partitions and not closing:
        time.sleep(revoke_delay)


c = Consumer({
    "bootstrap.servers": bootstrap,
    "group.id": group,
    "client.id": client_id,
    "partition.assignment.strategy": "cooperative-sticky",
    "session.timeout.ms": 6000,
    "heartbeat.interval.ms": 200,
    "auto.offset.reset": "earliest",
})
c.subscribe([topic], on_revoke=on_revoke)
print("subscribed", flush=True)
while True:
    c.poll(0.1)
    r, _, _ = select.select([sys.stdin], [], [], 0)
    if r and not sys.stdin.readline():
        break
closing = True
c.close()
