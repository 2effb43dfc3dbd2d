"""The camera: where frames come from, and where the table lies in them (the ArUco
calibration and the zones, in table millimetres)."""
