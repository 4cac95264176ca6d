"""The API server's dataset and graph routes, served in process (ASGI, no socket).

The same FastAPI app ``cognee`` serves under uvicorn, driven through httpx's ASGI transport,
logged in as the default user (its password set by the runner through DEFAULT_USER_PASSWORD).
"""

from __future__ import annotations

from typing import Any

from tests.cognee.differential.encoding import deep_unordered, unordered

USER = "default_user@example.com"
PASSWORD = "anatid-differential-password"


def _json(response: Any) -> Any:
    try:
        body = response.json()
    except ValueError:
        body = response.text
    return {"status": response.status_code, "body": body}


async def api_routes(rec: Any, dataset: Any) -> None:
    import httpx
    from cognee.api.client import app

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://cognee.test") as client:
        token = await client.post(
            "/api/v1/auth/login", data={"username": USER, "password": PASSWORD}
        )
        await rec.step("api.login_status", lambda: _value(token.status_code))
        if token.status_code == 200:
            client.headers["Authorization"] = f"Bearer {token.json()['access_token']}"
        await rec.step(
            "api.datasets", lambda: _get(client, "/api/v1/datasets", unordered_body=True)
        )
        base = f"/api/v1/datasets/{dataset.id}"
        await rec.step(
            "api.dataset_data", lambda: _get(client, f"{base}/data", unordered_body=True)
        )
        await rec.step("api.dataset_graph", lambda: _get(client, f"{base}/graph", deep=True))


async def _value(value: Any) -> Any:
    return value


async def _get(client: Any, path: str, unordered_body: bool = False, deep: bool = False) -> Any:
    out = _json(await client.get(path))
    if deep:
        out["body"] = deep_unordered(out["body"])
    elif unordered_body and isinstance(out["body"], list):
        out["body"] = unordered(out["body"])
    return out
