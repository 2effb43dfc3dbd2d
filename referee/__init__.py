"""Rules core of riichi-referee: table events in, rulings out.

Pure code with no hardware, camera or web imports; see ``../shared/spec/table-events.md``
for the event and ruling format that every part of the project speaks.
"""
