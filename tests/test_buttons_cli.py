"""``riichi-referee buttons``: the wiring check, run in-process on mock pins."""
import re
from pathlib import Path

import pytest
from gpiozero import Device

from app.cli import main
from hardware.config import SAMPLE_CONFIG, load_table_config

PRESS = re.compile(r"^seat (\d)  (chii|pon |kan |ron )  GPIO(\d+) +t=(\d+\.\d{6}) s")


@pytest.fixture
def quick_config(tmp_path) -> Path:
    """The sample pin map with a short recovery, so the simulated chatter is over quickly."""
    text = SAMPLE_CONFIG.read_text().replace("recover_s = 2.0", "recover_s = 0.3")
    path = tmp_path / "table.toml"
    path.write_text(text + "\n[camera]\ndevice = 0\n")
    return path


def test_simulate_presses_every_button_and_shows_a_chattering_one(quick_config, capsys):
    assert main(["buttons", "--config", str(quick_config), "--simulate"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert any("gpiozero mock pins (--simulate)" in line for line in out)
    assert "seat 0  GPIO17  GPIO27  GPIO22  GPIO23  GPIO24" in out
    presses = [PRESS.match(line) for line in out if PRESS.match(line)]
    wiring = load_table_config(quick_config)
    expected = [(b.seat, b.call, b.pin) for b in wiring.buttons]
    # each button once in order, then the chattering one's press once it counts again (its
    # chattering made none, not even its first edge, which looked like a press)
    first = expected[0]
    assert [(int(m[1]), m[2].strip(), int(m[3])) for m in presses] == expected + [first]
    times = [float(m[4]) for m in presses]
    assert times == sorted(times)
    faults = [line for line in out if line.startswith("FAULT  ")]
    assert len(faults) == 1 and "seat 0 chii button (GPIO17) chatters" in faults[0]
    assert sum(line.startswith("OK     ") for line in out) == 1
    assert out[-1] == "16 of 16 buttons pressed"


def test_mock_pins_say_so_and_stop_after_the_duration(monkeypatch, capsys):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    assert main(["buttons", "--duration", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "(the sample pin map)" in out
    assert ("pins: gpiozero mock pins (GPIOZERO_PIN_FACTORY=mock): nothing real is wired, so "
            "nothing will be pressed; add --simulate to see presses") in out
    assert "0 of 16 buttons pressed; never pressed: seat 0 chii (GPIO17)" in out


def test_no_gpio_is_one_line_with_a_hint(monkeypatch, capsys):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    monkeypatch.setattr(Device, "pin_factory", None)
    assert main(["buttons", "--duration", "0.1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("riichi-referee buttons: no GPIO pins here (")
    assert "set GPIOZERO_PIN_FACTORY=mock to try it without hardware" in err


def test_a_wiring_mistake_is_reported_before_any_pin_is_touched(tmp_path, capsys):
    bad = tmp_path / "table.toml"
    bad.write_text(SAMPLE_CONFIG.read_text().replace("pon = 27", "pon = 17"))
    assert main(["buttons", "--config", str(bad), "--simulate"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (f"riichi-referee buttons: {bad}: [buttons.seat0] pon = 17: GPIO17 "
                            "is already the seat 0 chii button\n")
