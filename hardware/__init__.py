"""The seat panel: call buttons and lights on gpiozero.

Buttons produce ``call`` events (once a press has passed its test: let go and still) and
:class:`ButtonFault` items (a chattering or stuck input, whose presses are no calls) on a
queue; lights show the referee's rulings. See ``hardware/WIRING.md`` for the wiring::

    wiring = load_table_config("table.toml")
    items = queue.Queue()
    with SeatButtons(wiring, items) as buttons, SeatLights(wiring) as lights:
        ...
"""
from .buttons import ButtonFault, ButtonPanel, CallButton, SeatButtons
from .config import SAMPLE_CONFIG, TableWiring, WiringError, load_table_config
from .lights import SeatLights
from .pins import PinsUnavailable

__all__ = ["ButtonFault", "ButtonPanel", "CallButton", "PinsUnavailable", "SAMPLE_CONFIG",
           "SeatButtons", "SeatLights", "TableWiring", "WiringError", "load_table_config"]
