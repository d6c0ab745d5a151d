"""The RabbitMQ drivers' consumer (rabbitmq.py, rabbitmq_quorum.py): the
spec's one consumer on its own thread, its deliveries, acknowledgements,
requeues and restarts as the driver observes them."""
from __future__ import annotations

import threading

from modelcheck.conform.driver import Driver, DriverFailure

__all__ = ["Consumer"]


class Consumer:
    """The spec's one consumer: manual acknowledgements, no prefetch limit,
    on its own thread (pika's connections are not thread-safe: acks and
    nacks are handed to that thread)."""

    def __init__(self, driver: Driver, node: int, queue: str, auto_ack: bool = False):
        self.driver = driver
        self.node = node
        self.queue = queue
        self.auto_ack = auto_ack
        self.lock = threading.Lock()
        self.tags: dict[int, int] = {}
        self.deliveries: dict[int, int] = {m: 0 for m in range(1, driver.consts["M"] + 1)}
        self.acked: set[int] = set()
        self.duplicates: set[int] = set()
        self.ready = threading.Event()
        self.closing = False
        self.error: BaseException | None = None
        self.conn = None
        self.thread = threading.Thread(target=self._run, daemon=True, name="qq-consumer")

    def start(self) -> None:
        self.thread.start()
        if not self.ready.wait(15):
            raise DriverFailure(f"the consumer could not attach to {self.queue}: {self.error!r}")

    def _run(self) -> None:
        try:
            self.conn = self.driver._connect(self.node)
            ch = self.conn.channel()
            ch.basic_qos(prefetch_count=0)
            self.ch = ch

            def on_message(_ch, method, _props, body) -> None:
                m = int(body)
                with self.lock:
                    if not self.auto_ack:
                        self.tags[m] = method.delivery_tag
                    self.deliveries[m] = self.deliveries.get(m, 0) + 1
                    if m in self.acked:
                        self.duplicates.add(m)

            ch.basic_consume(self.queue, on_message, auto_ack=self.auto_ack)
            self.ready.set()
            while not self.closing:
                self.conn.process_data_events(time_limit=0.1)
        except BaseException as err:        # the connection died
            self.error = err
            self.ready.set()
        finally:
            try:
                if self.conn is not None and self.conn.is_open:
                    self.conn.close()
            except Exception:
                pass

    def restart(self) -> None:
        """The spec's ConsumerDown: the consumer's connection goes down
        while it holds messages (the queue returns them, counting each
        return as a delivery attempt) and it comes back at once as a new
        consumer.  The history (deliveries, acks) is the spec's, kept."""
        self.closing = True
        self.thread.join(timeout=10)
        with self.lock:
            self.tags.clear()
        self.closing, self.error, self.conn = False, None, None
        self.ready.clear()
        self.thread = threading.Thread(target=self._run, daemon=True, name="qq-consumer")
        self.start()

    def settle(self, m: int, requeue: bool | None) -> None:
        with self.lock:
            tag = self.tags.pop(m, None)
            if tag is None:
                raise DriverFailure(f"the consumer holds no message {m}")
            if requeue is None:
                self.acked.add(m)
        done = threading.Event()

        def act() -> None:
            if requeue is None:
                self.ch.basic_ack(tag)
            else:
                self.ch.basic_nack(tag, requeue=True)
            done.set()
        self.conn.add_callback_threadsafe(act)
        if not done.wait(10):
            raise DriverFailure(f"the consumer could not settle message {m}: {self.error!r}")

    def snapshot(self) -> tuple[set[int], dict[int, int], set[int]]:
        if self.error is not None:
            raise DriverFailure(f"the consumer lost its connection: {self.error!r}")
        with self.lock:
            return set(self.tags), dict(self.deliveries), set(self.acked)

    def history(self) -> tuple[set[int], set[int]]:
        """Messages received at least once, and acknowledged."""
        if self.error is not None:
            raise DriverFailure(f"the consumer lost its connection: {self.error!r}")
        with self.lock:
            return {m for m, k in self.deliveries.items() if k > 0}, set(self.acked)

    def close(self) -> None:
        self.closing = True
        self.thread.join(timeout=10)
