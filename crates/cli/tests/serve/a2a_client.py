"""A real A2A client (PyPI's a2a-sdk) driving `gemini-rs serve`'s A2A agent.

Usage: python a2a_client.py <scenario.json>
The scenario: {"base": "http://127.0.0.1:PORT", "token": "..." (optional), "steps": [...]}
where a step is
  {"do": "card"},
  {"do": "send", "text": "...", "streaming": true|false, "context": "alias" (optional),
   "as": "alias"},
  {"do": "get", "task": "alias"}, {"do": "cancel", "task": "alias"},
  {"do": "raw", "method": "...", "params": {...}, "as": "alias"} (a JSON-RPC call through
  httpx; "as" names the task it answers), {"do": "sleep", "seconds": n}.
Prints one JSON object: each step's answer or error.
"""

import asyncio
import json
import sys
import uuid

import httpx
from google.protobuf import json_format

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import a2a_pb2 as pb


def as_dict(message):
    return json_format.MessageToDict(message)


async def main():
    with open(sys.argv[1]) as f:
        scenario = json.load(f)
    headers = {}
    if scenario.get("token"):
        headers["Authorization"] = f"Bearer {scenario['token']}"
    log = {"steps": []}
    tasks = {}
    contexts = {}
    async with httpx.AsyncClient(headers=headers, timeout=60) as http:
        card = await A2ACardResolver(http, scenario["base"]).get_agent_card()
        clients = {}

        def client(streaming):
            if streaming not in clients:
                config = ClientConfig(streaming=streaming, httpx_client=http)
                clients[streaming] = ClientFactory(config).create(card)
            return clients[streaming]

        for step in scenario["steps"]:
            try:
                if step["do"] == "card":
                    answer = as_dict(card)
                elif step["do"] == "send":
                    message = pb.Message(
                        message_id=str(uuid.uuid4()),
                        role=pb.Role.ROLE_USER,
                        parts=[pb.Part(text=step["text"])],
                    )
                    if step.get("context"):
                        message.context_id = contexts[step["context"]]
                    request = pb.SendMessageRequest(message=message)
                    events = []
                    async for event in client(step.get("streaming", False)).send_message(request):
                        events.append(as_dict(event))
                    last = events[-1]
                    task = last.get("task") or last.get("statusUpdate") or {}
                    task_id = task.get("id") or task.get("taskId")
                    context_id = task.get("contextId")
                    if step.get("as"):
                        tasks[step["as"]] = task_id
                        contexts[step["as"]] = context_id
                    answer = {"events": events, "taskId": task_id, "contextId": context_id}
                elif step["do"] == "get":
                    task = await client(False).get_task(pb.GetTaskRequest(id=tasks[step["task"]]))
                    answer = as_dict(task)
                elif step["do"] == "cancel":
                    task = await client(False).cancel_task(pb.CancelTaskRequest(id=tasks[step["task"]]))
                    answer = as_dict(task)
                elif step["do"] == "raw":
                    body = {"jsonrpc": "2.0", "id": 1, "method": step["method"], "params": step.get("params", {})}
                    url = card.supported_interfaces[0].url
                    answer = (await http.post(url, json=body)).json()
                    task = answer.get("result", {}).get("task")
                    if step.get("as") and task:
                        tasks[step["as"]] = task["id"]
                        contexts[step["as"]] = task["contextId"]
                elif step["do"] == "sleep":
                    await asyncio.sleep(step["seconds"])
                    answer = None
                else:
                    raise ValueError(f"unknown step {step['do']}")
                log["steps"].append({"do": step["do"], "answer": answer})
            except Exception as e:  # the test reads the error
                log["steps"].append({"do": step["do"], "error": f"{type(e).__name__}: {e}"})
    print(json.dumps(log))


asyncio.run(main())
