"""The local HTTP API (`jgm serve`): a FastAPI app built by `app.create_app`."""
