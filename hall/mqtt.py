"""paho-mqtt clients set up the one way the hall uses them: MQTT 5 (a refused publish comes
back as a reason code instead of vanishing), the user and password, TLS when a CA is given.

paho-mqtt is dual-licensed EPL-2.0 or EDL-1.0; the EDL is the BSD 3-clause licence, under
which the project (MIT) uses it.
"""
from __future__ import annotations

import ssl
import sys

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from .config import BrokerSettings


def make_client(broker: BrokerSettings, client_id: str, *, reconnect: bool,
                reconnect_delay: tuple[float, float] = (1.0, 2.0)) -> mqtt.Client:
    """A paho client for ``broker``. ``reconnect``: let paho's network thread reconnect by
    itself (the hall's subscriber); the table's link makes a fresh client instead, so that
    nothing paho queued in memory is sent beside what the journal says is due.
    ``reconnect_delay``: (first, longest) seconds paho waits before reconnecting, doubling
    from the first up to the longest."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                         protocol=mqtt.MQTTv5, reconnect_on_failure=reconnect)
    if broker.username:
        client.username_pw_set(broker.username, broker.password)
    if broker.tls_ca is not None:
        client.tls_set(ca_certs=str(broker.tls_ca),
                       certfile=str(broker.tls_cert) if broker.tls_cert else None,
                       keyfile=str(broker.tls_key) if broker.tls_key else None,
                       cert_reqs=ssl.CERT_REQUIRED, tls_version=ssl.PROTOCOL_TLS_CLIENT)
    client.reconnect_delay_set(min_delay=reconnect_delay[0], max_delay=reconnect_delay[1])
    return client


def session_properties(seconds: int) -> Properties:
    """CONNECT properties keeping the session (and the messages queued for it) ``seconds``
    after a disconnect: MQTT 5 ends a session at once otherwise."""
    props = Properties(PacketTypes.CONNECT)
    props.SessionExpiryInterval = seconds
    return props


def failed(reason_code) -> bool:
    """True for a reason code that is a refusal (MQTT 5: 0x80 and up)."""
    value = getattr(reason_code, "value", reason_code)
    return isinstance(value, int) and value >= 0x80


def describe_unreached(broker: BrokerSettings) -> str:
    """Why the connection to ``broker`` failed, for ``on_connect_fail``: paho passes no reason,
    but calls it while handling the exception, so it is there to read. A certificate that is
    not the hall CA's is worth saying so: it is a setting to fix, not a broker to wait for."""
    exc = sys.exc_info()[1]
    if isinstance(exc, ssl.SSLCertVerificationError):
        return (f"the broker's certificate was refused ({exc.verify_message}): tls_ca "
                f"({broker.tls_ca}) must be the hall's CA, and the broker's certificate must "
                f"name {broker.host}")
    if isinstance(exc, ssl.SSLError):
        return f"TLS with the broker failed ({exc.reason or exc}): is {broker.port} its TLS port?"
    return "no answer (is the broker running, and the address right?)"


def closed_unanswered(broker: BrokerSettings) -> str:
    """The broker closed the connection before it answered the CONNECT."""
    if broker.tls_ca is None:
        return ("the broker closed the connection unanswered (a broker that listens with TLS "
                "does that to MQTT in clear: set tls_ca to the hall's CA)")
    return "the broker closed the connection unanswered"


def describe_connect_failure(reason_code) -> str:
    text = str(reason_code)
    if "authori" in text.lower() or "user name or password" in text.lower():
        return f"the broker refused the login ({text}): check the user and password"
    return f"the broker refused the connection ({text})"
