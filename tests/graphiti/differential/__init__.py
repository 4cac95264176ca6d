"""A differential harness: the same Graphiti scenarios on a reference backend and on anatid.

``scenario.py`` runs the scenarios through Graphiti's public API on one backend and dumps what
Graphiti returned as typed JSON; ``compare.py`` normalises what legitimately differs and lists
every other difference; ``references.py`` builds the private venvs the reference backends need.
"""
