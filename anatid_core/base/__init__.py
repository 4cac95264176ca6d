"""base: what every layer shares: errors, records (model), value codecs, name rules, settings.

May import: nothing of anatid_core outside base (the standard library, numpy and orjson only).
"""
