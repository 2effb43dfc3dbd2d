"""A photo's colour cast told from its tiles' ivory faces (vision/finding/colour_cast.py)."""
import numpy as np
import pytest

from vision.finding.colour_cast import balanced, cast_gains, ivory_ground


def face(ground, ink=(30, 30, 30), size=(64, 48)):
    """An ivory-like face: its ground with a block of ink in the middle."""
    crop = np.zeros((*size, 3), np.uint8)
    crop[:] = ground
    crop[20:44, 14:34] = ink
    return crop


CREAM = (205, 228, 240)          # BGR: an ivory set's cream, as the labelled photos show it
WARM = (120, 190, 250)           # the same under a warm lamp


def test_cream_faces_are_left_as_they_are():
    assert cast_gains([face(CREAM) for _ in range(8)]) is None


def test_a_warm_cast_is_undone_on_the_faces_ground():
    gains = cast_gains([face(WARM) for _ in range(8)])
    assert gains is not None and gains[0] > 1 > gains[2]
    ground = balanced(face(WARM), gains)[0, 0].astype(float)
    assert ground.max() / ground.min() < 1.1


@pytest.mark.parametrize("crop", [
    np.full((64, 48, 3), (40, 120, 230), np.uint8),                  # an orange back: no ink
    face((40, 40, 40), ink=(230, 230, 230)),                         # a dark face, light ink
])
def test_a_back_or_a_dark_face_has_no_ivory_ground(crop):
    assert ivory_ground(crop) is None


def test_a_dark_set_with_a_few_light_faces_is_not_balanced():
    dark = [face((40, 40, 40), ink=(230, 230, 230)) for _ in range(6)]
    assert cast_gains(dark + [face(WARM), face(WARM)]) is None
