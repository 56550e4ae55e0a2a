"""A campaign's deliverables in one zip with a manifest (issue 23, point 4): `deliverables.build`."""
