"""A small OTLP/HTTP receiver for the telemetry tests, on the official
opentelemetry-proto package (PyPI): it decodes the protobuf bodies posted to
/v1/traces, /v1/logs and /v1/metrics and appends each request, as JSON
(protobuf's JSON mapping), to the file named by argv[1], one line per
request: {"signal": "traces", "body": {...}}, with trace and span ids in
hex (as W3C trace context writes them) instead of base64. It listens on 127.0.0.1 and
prints its port on stdout once ready."""

import base64
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

SIGNALS = {
    "/v1/traces": ("traces", trace_service_pb2.ExportTraceServiceRequest,
                   trace_service_pb2.ExportTraceServiceResponse),
    "/v1/logs": ("logs", logs_service_pb2.ExportLogsServiceRequest,
                 logs_service_pb2.ExportLogsServiceResponse),
    "/v1/metrics": ("metrics", metrics_service_pb2.ExportMetricsServiceRequest,
                    metrics_service_pb2.ExportMetricsServiceResponse),
}

ID_KEYS = ("traceId", "spanId", "parentSpanId")


def hex_ids(value):
    """Rewrites the base64 ids of protobuf's JSON mapping as hex."""
    if isinstance(value, dict):
        return {k: (base64.b64decode(v).hex() if k in ID_KEYS and isinstance(v, str)
                    else hex_ids(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [hex_ids(v) for v in value]
    return value


out_path = sys.argv[1]
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        signal = SIGNALS.get(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if signal is None:
            self.send_response(404)
            self.end_headers()
            return
        if self.headers.get("Content-Type") != "application/x-protobuf":
            self.send_response(415)
            self.end_headers()
            return
        name, request_type, response_type = signal
        request = request_type()
        try:
            request.ParseFromString(body)
        except Exception as e:  # a body that is not the message: a 400
            self.send_response(400)
            self.end_headers()
            self.wfile.write(str(e).encode())
            return
        line = json.dumps({"signal": name, "body": hex_ids(MessageToDict(request))})
        with lock, open(out_path, "a") as f:
            f.write(line + "\n")
        reply = response_type().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
