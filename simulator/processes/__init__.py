"""The business processes of the simulation, one module each (support, engineering, comms, crm, staffing).

``simulator.simulate`` starts them; the package exports no names of its own.
"""

__all__: list[str] = []
