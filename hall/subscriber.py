"""The hall's one subscription: every table's messages from the broker into a
:class:`~hall.board.Board`.

The hall keeps a persistent MQTT session (``clean_start`` off, a session expiry of a day): while
the hall's server restarts, the broker keeps the events and rulings the tables send for it
(QoS 1), and delivers them when the hall is back; the retained ``state``, ``health`` and
``online`` of every table (QoS 0: only the latest matters) come on every (re)subscription, so
the tiles are right at once.

The hall's one message the other way, the round start (:mod:`hall.round_start`), goes out on
the same connection: :meth:`HallSubscriber.start_round`.
"""
from __future__ import annotations

import logging
import threading

from referee.errors import RefereeError
from referee.events import dumps

from . import round_start
from .board import Board
from .config import BrokerSettings
from .mqtt import (describe_connect_failure, describe_unreached, failed, make_client,
                   session_properties)
from .topics import hall_subscriptions, round_topic

log = logging.getLogger("riichi-referee.hall")

SESSION_SECONDS = 24 * 3600


class HallSubscriber:
    """Keeps ``board`` fed from ``broker`` (paho's network thread; it reconnects by itself).

    ``client_id``: the hall's session on the broker (one per hall server).
    ``reconnect_delay``: (first, longest) seconds between tries to reach a lost broker, the
    pause doubling from the first to the longest.
    """

    def __init__(self, board: Board, broker: BrokerSettings, client_id: str | None = None,
                 reconnect_delay: tuple[float, float] = (1.0, 2.0)):
        self.board = board
        self.broker = broker
        self.client_id = client_id or f"riichi-hall-{board.hall}"
        self.subscribed = threading.Event()
        self._refused: dict[int, str] = {}
        self.client = make_client(broker, self.client_id, reconnect=True,
                                  reconnect_delay=reconnect_delay)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message
        self.client.on_publish = self._on_publish
        self.client.on_connect_fail = self._on_connect_fail

    def start(self) -> "HallSubscriber":
        b = self.broker
        self.client.connect_async(b.host, b.port, keepalive=b.keepalive, clean_start=False,
                                  properties=session_properties(SESSION_SECONDS))
        self.client.loop_start()
        return self

    def stop(self) -> None:
        try:
            self.client.disconnect()
        finally:
            self.client.loop_stop()

    def start_round(self, round_no: int, seconds: float, timeout: float = 5.0) -> dict:
        """Start round ``round_no``, ``seconds`` long, at every table: publish the retained
        round start and wait for the broker to take it. Returns the message; raises
        :class:`~referee.errors.RefereeError` (one line) when the broker does not take it,
        :class:`~hall.round_start.BadRoundStart` for a round or length out of range."""
        message = round_start.round_message(round_no, seconds)
        topic = round_topic(self.board.hall)
        if not self.subscribed.is_set():
            raise RefereeError(f"the hall has no broker now ({self.board.broker_text}): "
                               f"round {round_no} was not started")
        info = self.client.publish(topic, dumps(message).encode(), qos=1, retain=True,
                                   properties=round_start.publish_properties(message))
        try:
            info.wait_for_publish(timeout)
        except (RuntimeError, ValueError) as exc:   # not connected, or the queue is full
            raise RefereeError(f"the round start did not reach the broker ({exc}): "
                               f"round {round_no} was not started") from None
        refused = self._refused.pop(info.mid, None)
        if refused is not None:
            raise RefereeError(f"the broker refused the round start ({refused}): the hall's "
                               f"user must be allowed to write {topic}")
        if not info.is_published():
            raise RefereeError(f"the broker did not confirm the round start in {timeout:g} s; "
                               f"round {round_no} may or may not have started: look at the "
                               "tables' clocks before trying again")
        log.info("hall: round %d started (%g s) at every table", round_no, seconds)
        return message

    def _on_publish(self, client, userdata, mid, reason_code, properties) -> None:
        if failed(reason_code):
            self._refused[mid] = str(reason_code)

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if failed(reason_code):
            self.board.set_broker(False, describe_connect_failure(reason_code))
            return
        # Subscribing again on a kept session is harmless and covers a broker that lost it.
        client.subscribe(hall_subscriptions(self.board.hall))

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties) -> None:
        if any(failed(rc) for rc in reason_codes):
            self.board.set_broker(False, f"the broker refused the hall's subscription "
                                         f"({reason_codes[0]}): check the hall user's ACL")
            return
        self.board.set_broker(True, "")
        self.subscribed.set()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        self.subscribed.clear()
        b = self.broker
        self.board.set_broker(False, f"lost the broker at {b.host}:{b.port}; reconnecting "
                                     "(tiles show each table's last word)")

    def _on_connect_fail(self, client, userdata) -> None:
        b = self.broker
        self.board.set_broker(False, f"cannot reach the broker at {b.host}:{b.port}: "
                                     f"{describe_unreached(b)}; retrying")

    def _on_message(self, client, userdata, message) -> None:
        self.board.receive(message.topic, message.payload)
