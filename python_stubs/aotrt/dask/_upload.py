"""Sending a model's bytes to every worker of a distributed cluster, once per worker process.

A WorkerPlugin, because the scheduler keeps it and runs it again on workers that join later,
including the replacement of a worker that died; tasks then only carry the content hash."""
from distributed import WorkerPlugin

from . import _worker

_done = {}   # client id -> set of sha256 already registered through that client


class ModelUpload(WorkerPlugin):
    """Puts the model's bytes into the worker process's cache (loaded when a task first needs it)."""

    def __init__(self, sha256, data):
        self.sha256, self.data = sha256, data
        self.name = "aotrt-model-" + sha256

    def setup(self, worker):
        _worker.add_uploaded(self.sha256, self.data)
        self.data = None   # this worker's copy of the plugin need not keep a second copy of the bytes


def upload(client, sha256, data):
    """Register the model on `client`'s cluster unless this client already did."""
    seen = _done.setdefault(client.id, set())
    if sha256 in seen:
        return
    client.register_worker_plugin(ModelUpload(sha256, data), name="aotrt-model-" + sha256)
    seen.add(sha256)
