"""Upload caps: an oversized upload is refused before its body is read.

* :class:`UploadCapMiddleware` answers 413 (JSON for the API, text otherwise) to a request
  whose ``Content-Length`` is past ``GRIDPORTAL_MAX_UPLOAD_BYTES`` (plus room for the form
  around the file): nothing of the body is read, the answer comes at once.
* The upload handlers stop reading a body sent without a length (chunked) once it passes the
  cap; the request then has no file and the service's own size check names the limit.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.core.files.uploadhandler import (
    MemoryFileUploadHandler,
    StopUpload,
    TemporaryFileUploadHandler,
)
from django.http import HttpResponse

#: Room for the multipart envelope and the other form fields next to the file.
FORM_SLACK_BYTES = 1 << 20


def upload_cap() -> int:
    return int(settings.GRIDPORTAL_MAX_UPLOAD_BYTES)


def too_large_message(size: int | None = None) -> str:
    got = f"the upload is {size:,} bytes; " if size is not None else ""
    return f"{got}the limit is {upload_cap():,} bytes (GRIDPORTAL_MAX_UPLOAD_BYTES)"


class UploadCapMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > upload_cap() + FORM_SLACK_BYTES:
            message = too_large_message(length)
            if request.path.startswith("/api/"):
                body = json.dumps({"file": [message]})
                response = HttpResponse(body, status=413, content_type="application/json")
            else:
                response = HttpResponse(message, status=413, content_type="text/plain")
            response["Connection"] = "close"  # the unread body is not kept for another request
            return response
        return self.get_response(request)


class _Capped:
    """Stops reading a file past the cap when the body came without a length (the middleware
    refused long bodies with one; a file a little past the cap is refused by the service,
    which names the limit)."""

    def handle_raw_input(self, input_data, META, content_length, boundary, encoding=None):
        self.body_length = content_length
        return super().handle_raw_input(input_data, META, content_length, boundary, encoding)

    def receive_data_chunk(self, raw_data, start):
        chunked = not getattr(self, "body_length", None)
        if chunked and start + len(raw_data) > upload_cap() + FORM_SLACK_BYTES:
            self.request.upload_too_large = True
            raise StopUpload(connection_reset=True)
        return super().receive_data_chunk(raw_data, start)


class CappedMemoryFileUploadHandler(_Capped, MemoryFileUploadHandler):
    pass


class CappedTemporaryFileUploadHandler(_Capped, TemporaryFileUploadHandler):
    pass
