"""The table config's wiring sections: the sample is sound, and each wiring mistake is one
clear line naming the file, the section and the key."""
import copy
import tomllib

import pytest

from hardware.config import (SAMPLE_CONFIG, DebounceSettings, WiringError, load_table_config,
                             parse_table_config)
from referee.errors import RefereeError

SAMPLE = tomllib.loads(SAMPLE_CONFIG.read_text())


def sample(**changes):
    """The sample config as a dict, with ``section.key=value`` changes (None deletes)."""
    data = copy.deepcopy(SAMPLE)
    for dotted, value in changes.items():
        *path, key = dotted.split("__")
        table = data
        for part in path:
            table = table.setdefault(part, {})
        if value is None:
            del table[key]
        else:
            table[key] = value
    return data


def problems(data) -> list[str]:
    with pytest.raises(WiringError) as info:
        parse_table_config(data, "table.toml")
    return info.value.problems


def test_sample_wires_sixteen_buttons_four_lights_and_a_buzzer():
    w = load_table_config(SAMPLE_CONFIG)
    assert [(b.seat, b.call) for b in w.buttons] == [
        (s, c) for s in range(4) for c in ("chii", "pon", "kan", "ron")]
    assert sorted(w.lights) == [0, 1, 2, 3]
    assert w.buzzer is not None
    pins = [b.pin for b in w.buttons] + list(w.lights.values()) + [w.buzzer]
    assert len(pins) == len(set(pins)) == 21
    # Never the ID EEPROM, I2C or UART pins; everything on the header.
    assert not set(pins) & {0, 1, 2, 3, 14, 15}
    assert all(2 <= p <= 27 for p in pins)
    assert w.pull == "up" and w.pressed_level is False
    assert w.debounce == DebounceSettings()


def test_lights_and_buzzer_are_on_pins_pulled_down_at_power_on():
    # GPIO0-8 are pulled up at reset: a light there would glow while the Pi boots.
    w = load_table_config(SAMPLE_CONFIG)
    assert all(pin >= 9 for pin in [*w.lights.values(), w.buzzer])


def test_sections_of_other_parts_are_ignored_but_wiring_keys_are_strict():
    data = sample(camera__device=0, camera__resolution=[1920, 1080], zones__pond0=[1, 2, 3, 4],
                  service__port=8080)
    assert len(parse_table_config(data).buttons) == 16
    assert problems(sample(buttons__debounce=5)) == [
        "table.toml: [buttons] debounce: unknown key (expected pull, active_state, "
        "debounce_ms, chatter_presses, chatter_window_ms, chatter_run_s, recover_s, "
        "stuck_s, referee_call, referee_call_s, sign_hold_s or seat0-seat3)"]


@pytest.mark.parametrize("changes, expected", [
    # a pin used twice, across buttons, lights and the buzzer
    ({"buttons__seat2__pon": 17},
     "table.toml: [buttons.seat2] pon = 17: GPIO17 is already the seat 0 chii button"),
    ({"lights__seat3": 23},
     "table.toml: [lights] seat3 = 23: GPIO23 is already the seat 0 ron button"),
    ({"buzzer__pin": 24},
     "table.toml: [buzzer] pin = 24: GPIO24 is already the seat 0 light"),
    # pins that do not exist
    ({"buttons__seat1__kan": 28},
     "table.toml: [buttons.seat1] kan = 28: GPIO28 does not exist on the 40-pin header "
     "(GPIO 2-27)"),
    ({"buttons__seat1__kan": "GPIO40"},
     'table.toml: [buttons.seat1] kan = "GPIO40": GPIO40 does not exist on the 40-pin '
     "header (GPIO 2-27)"),
    ({"buttons__seat1__kan": 0},
     "table.toml: [buttons.seat1] kan = 0: GPIO0 is reserved for the HAT ID EEPROM (ID_SD); "
     "use GPIO 2-27"),
    ({"buttons__seat1__kan": -3},
     "table.toml: [buttons.seat1] kan = -3: GPIO-3 does not exist on the 40-pin header "
     "(GPIO 2-27)"),
    ({"buttons__seat1__kan": "pin 11"},
     'table.toml: [buttons.seat1] kan = "pin 11": a pin is a BCM GPIO number such as 17 '
     '(or "GPIO17")'),
    ({"buttons__seat1__kan": True},
     'table.toml: [buttons.seat1] kan = true: a pin is a BCM GPIO number such as 17 '
     '(or "GPIO17")'),
    # unknown seats and calls, missing buttons
    ({"buttons__seat4": {"chii": 4}},
     "table.toml: [buttons] seat4: unknown seat 'seat4': seats are seat0 to seat3, numbered "
     "in turn order"),
    ({"lights__east": 4},
     "table.toml: [lights] east: unknown seat 'east': seats are seat0 to seat3, numbered in "
     "turn order"),
    ({"buttons__seat3__riichi": 4},
     "table.toml: [buttons.seat3] riichi: unknown call 'riichi': calls are chii, pon, kan, ron"),
    ({"buttons__seat3__light": 4},
     "table.toml: [buttons.seat3] light: unknown call 'light': calls are chii, pon, kan, ron "
     "(a seat's light goes in [lights])"),
    ({"buttons__seat2__ron": None}, "table.toml: [buttons.seat2]: no ron button"),
    ({"buttons__seat1": None},
     "table.toml: [buttons.seat1]: missing: each seat needs its chii, pon, kan and ron buttons"),
    # settings
    ({"buttons__pull": "sideways"},
     'table.toml: [buttons] pull = "sideways": must be "up" (buttons switch to GND), "down" '
     '(buttons switch to 3V3) or "none" (external resistors, with active_state)'),
    ({"buttons__active_state": "low"},
     'table.toml: [buttons] active_state = "low": only with pull = "none"; with pull = "up" '
     "a pressed button reads low"),
    ({"buttons__pull": "none"},
     'table.toml: [buttons] pull = "none": needs active_state = "low" or "high" (the level of '
     "a pressed button)"),
    ({"buttons__debounce_ms": -1},
     "table.toml: [buttons] debounce_ms = -1: must be a number at least 0 and at most 100"),
    ({"buttons__chatter_presses": 1},
     "table.toml: [buttons] chatter_presses = 1: must be a whole number, at least 2"),
    ({"buttons__chatter_window_ms": 3},
     "table.toml: [buttons] chatter_window_ms = 3: must be longer than debounce_ms"),
    ({"lights__pwm": "yes"}, 'table.toml: [lights] pwm = "yes": must be true or false'),
    ({"buzzer__pin": None},
     "table.toml: [buzzer]: no pin (leave the [buzzer] section out for no buzzer)"),
])
def test_each_wiring_mistake_is_one_line_naming_where(changes, expected):
    assert problems(sample(**changes)) == [expected]


@pytest.mark.parametrize("pin", [2, 3])
def test_pull_down_on_the_i2c_pins_is_refused(pin):
    data = sample(buttons__pull="down", buttons__seat0__chii=pin, buttons__seat0__pon=4)
    # the sample's lights would be fine; only the button on GPIO2/3 is wrong
    assert problems(data) == [
        f"table.toml: [buttons.seat0] chii = {pin}: GPIO{pin} has a fixed 1.8k pull-up on the "
        'board, so pull = "down" cannot work there; wire the button to GND with pull = "up", '
        "or use another pin"]
    # with the usual pull-up they are ordinary inputs
    ok = sample(buttons__seat0__chii=pin)
    assert parse_table_config(ok).button(0, "chii").pin == pin


def test_every_problem_is_reported_at_once():
    data = sample(buttons__seat0__pon=17, buttons__seat1__kan=99, buttons__seat3__ron=None)
    assert len(problems(data)) == 3
    assert all("\n" not in p and p.startswith("table.toml: ") for p in problems(data))


def test_active_state_with_external_resistors_and_gpio_names():
    w = parse_table_config(sample(buttons__pull="none", buttons__active_state="high",
                                  buttons__seat0__chii="GPIO4"))
    assert w.pressed_level is True
    assert w.button(0, "chii").pin == 4
    assert parse_table_config(sample(buttons__pull="down")).pressed_level is True


def test_settings_are_read_in_their_units():
    w = parse_table_config(sample(buttons__debounce_ms=2, buttons__chatter_window_ms=300,
                                  buttons__recover_s=5, lights__winner_s=3, buzzer__beeps=3))
    assert w.debounce.debounce == pytest.approx(0.002)
    assert w.debounce.chatter_window == pytest.approx(0.3)
    assert w.debounce.recover == 5
    assert w.light.winner == 3 and w.light.beeps == 3


@pytest.mark.parametrize("changes, expected", [
    ({"buttons__stuck_s": 0},
     "table.toml: [buttons] stuck_s = 0: must be a number more than 0 and at most 3600"),
    ({"buttons__stuck_s": 2.0},
     "table.toml: [buttons] stuck_s = 2.0: must be longer than sign_hold_s (2 s): a button "
     "held that long on purpose would be taken for a stuck one"),
    ({"buttons__stuck_s": 5, "buttons__referee_call_s": 6.0},
     "table.toml: [buttons] stuck_s = 5: must be longer than referee_call_s (6 s): a button "
     "held that long on purpose would be taken for a stuck one"),
    ({"buttons__stuck_s": None, "buttons__sign_hold_s": 4.5},
     "table.toml: [buttons] sign_hold_s = 4.5: must be shorter than stuck_s (4 s, the "
     "default): set a longer stuck_s too"),
])
def test_a_stuck_button_is_one_held_longer_than_any_hold_made_on_purpose(changes, expected):
    assert problems(sample(**changes)) == [expected]


def test_stuck_s_is_read_in_seconds():
    assert parse_table_config(sample(buttons__stuck_s=6)).debounce.stuck == 6
    assert parse_table_config(sample(buttons__stuck_s=None)).debounce.stuck == 4.0


def test_lights_and_buzzer_are_optional():
    data = sample(lights=None, buzzer=None)
    w = parse_table_config(data)
    assert w.lights == {} and w.buzzer is None


def test_file_problems_are_one_line(tmp_path):
    missing = tmp_path / "nope.toml"
    with pytest.raises(WiringError, match=r"nope\.toml: no such file$"):
        load_table_config(missing)
    bad = tmp_path / "bad.toml"
    bad.write_text("[buttons]\npull = \n")
    with pytest.raises(WiringError) as info:
        load_table_config(bad)
    assert str(info.value).startswith(f"{bad}: not valid TOML: ")
    assert "line 2" in str(info.value) and "\n" not in str(info.value)
    empty = tmp_path / "empty.toml"
    empty.write_text("[camera]\ndevice = 0\n")
    with pytest.raises(WiringError, match="no \\[buttons\\] section"):
        load_table_config(empty)
    # a WiringError is a RefereeError: the CLI prints it and exits 2, no traceback
    assert issubclass(WiringError, RefereeError)
