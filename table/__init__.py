"""The table service, beneath the devices and views: the journal, the live table and its hub,
the service's threads, the clock, the press hold, the config and the table's read side
(:class:`table.view.TableView`)."""
