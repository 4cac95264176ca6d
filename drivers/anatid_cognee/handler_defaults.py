"""The dataset handlers follow the provider, as they do for Cognee's own backends (issue 12).

Cognee's ``GraphConfig.fill_derived`` swaps its default dataset handler (``ladybug``) for the
provider's own when the provider is ``turso``, ``neo4j`` or ``postgres``; ``VectorConfig`` does
the same for ``turso`` and ``pgvector``. A registered provider has no such rule, so with
``GRAPH_DATABASE_PROVIDER=anatid`` and the handler keys unset, backend access control (on by
default) raised ``OSError: The selected graph dataset to database handler does not work with
the configured graph database provider``.

Cognee offers no hook for this, so registration wraps the two config classes' ``__init__``:
after Cognee's own validators ran, a config whose provider is ``anatid`` and whose handler is
still Cognee's default gets the anatid handler. A handler set explicitly to anything else is
left alone, so a wrong one still gets Cognee's own error naming the supported handlers.

Code that selects the provider after the config was built (``cognee.config.set_graph_db_config``,
``set_vector_db_config``, ``set_graph_database_provider``, ``set_vector_db_provider``, and
``cognee.config.set(key, value)`` and ``cognee-cli config set``, which dispatch to them) assigns
attributes directly and re-runs no validator, so those four setters are wrapped too: after
Cognee's setter ran, the same rule applies, and a provider switched away from ``anatid`` takes
back Cognee's default handler from ours (unless the same call set the handler).
"""

from __future__ import annotations

from functools import wraps
from typing import Any

from .handlers import GRAPH_HANDLER, VECTOR_HANDLER
from .paths import PROVIDER

#: Handler values that mean "not chosen": Cognee's defaults, and the provider name itself.
_GRAPH_UNCHOSEN = frozenset({"ladybug", PROVIDER})
_VECTOR_UNCHOSEN = frozenset({"lancedb", PROVIDER})
_WRAPPED = "__anatid_follows_provider__"


def follow_graph_provider(config: Any) -> None:
    """Give an anatid graph config the ``anatid_graph`` handler unless one was chosen."""
    provider = str(getattr(config, "graph_database_provider", "")).lower()
    handler = str(getattr(config, "graph_dataset_database_handler", "")).lower()
    if provider == PROVIDER and handler in _GRAPH_UNCHOSEN:
        object.__setattr__(config, "graph_dataset_database_handler", GRAPH_HANDLER)


def follow_vector_provider(config: Any) -> None:
    """Give an anatid vector config the ``anatid_vector`` handler unless one was chosen."""
    provider = str(getattr(config, "vector_db_provider", "")).lower()
    handler = str(getattr(config, "vector_dataset_database_handler", "")).lower()
    if provider == PROVIDER and handler in _VECTOR_UNCHOSEN:
        object.__setattr__(config, "vector_dataset_database_handler", VECTOR_HANDLER)


def unfollow_graph_provider(config: Any) -> None:
    """Give a non-anatid graph config back Cognee's default handler in place of ours."""
    if str(getattr(config, "graph_database_provider", "")).lower() != PROVIDER and (
        getattr(config, "graph_dataset_database_handler", "") == GRAPH_HANDLER
    ):
        object.__setattr__(config, "graph_dataset_database_handler", _default(config, "graph"))


def unfollow_vector_provider(config: Any) -> None:
    """Give a non-anatid vector config back Cognee's default handler in place of ours."""
    if str(getattr(config, "vector_db_provider", "")).lower() != PROVIDER and (
        getattr(config, "vector_dataset_database_handler", "") == VECTOR_HANDLER
    ):
        object.__setattr__(config, "vector_dataset_database_handler", _default(config, "vector"))


def _default(config: Any, side: str) -> str:
    field = f"{side}_dataset_database_handler"
    return str(type(config).model_fields[field].default)


def install() -> None:
    """Apply the rule to every config Cognee builds from now on, and to the ones it has built
    already (its config getters are cached). Idempotent."""
    from cognee.infrastructure.databases.graph import config as graph_config
    from cognee.infrastructure.databases.vector import config as vector_config

    _follow_on_init(graph_config.GraphConfig, follow_graph_provider)
    _follow_on_init(vector_config.VectorConfig, follow_vector_provider)
    _follow_setters()
    if graph_config.get_graph_config.cache_info().currsize:
        follow_graph_provider(graph_config.get_graph_config())
    if vector_config.get_vectordb_config.cache_info().currsize:
        follow_vector_provider(vector_config.get_vectordb_config())


def _follow_on_init(cls: type, follow: Any) -> None:
    original = cls.__init__
    if getattr(original, _WRAPPED, False):
        return

    @wraps(original)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        follow(self)

    setattr(__init__, _WRAPPED, True)
    cls.__init__ = __init__  # type: ignore[misc]


#: Cognee's setters that can change a provider: which config they change, and its handler key.
_SETTERS = {
    "set_graph_db_config": "graph",
    "set_graph_database_provider": "graph",
    "set_vector_db_config": "vector",
    "set_vector_db_provider": "vector",
}


def _follow_setters() -> None:
    from cognee.api.v1.config.config import config as cognee_config

    for name, side in _SETTERS.items():
        original = getattr(cognee_config, name)
        if getattr(original, _WRAPPED, False):
            continue
        setattr(cognee_config, name, staticmethod(_then_follow(original, side)))


def _then_follow(original: Any, side: str) -> Any:
    @wraps(original)
    def setter(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        values = args[0] if args and isinstance(args[0], dict) else {}
        _rederive(side, handler_given=f"{side}_dataset_database_handler" in values)
        return result

    setattr(setter, _WRAPPED, True)
    return setter


def _rederive(side: str, *, handler_given: bool) -> None:
    """Apply the rule to Cognee's current config of ``side`` after one of its setters ran."""
    if side == "graph":
        from cognee.infrastructure.databases.graph.config import get_graph_config

        config = get_graph_config()
        follow, unfollow = follow_graph_provider, unfollow_graph_provider
    else:
        from cognee.infrastructure.databases.vector.config import get_vectordb_config

        config = get_vectordb_config()
        follow, unfollow = follow_vector_provider, unfollow_vector_provider
    follow(config)
    if not handler_given:
        unfollow(config)
