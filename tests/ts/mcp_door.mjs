// Drives a live hub's MCP door with the official TypeScript SDK: session handles, prompts, resources.
// Usage: node mcp_door.mjs http://127.0.0.1:PORT ; prints one JSON line of what it saw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const base = process.argv[2];
const client = new Client({ name: "prove-hub-ts-test", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));

const opened = await client.callTool({ name: "hub__open_session", arguments: { seed: 0 } });
const handle = opened.structuredContent.session;
const meta = { "hub/session": handle };
const deposit = await client.callTool({
  name: "banking__deposit_funds",
  arguments: { account_id: "ACC-0001", amount: 25 },
  _meta: meta,
});
const fork = await client.callTool({ name: "hub__open_session", arguments: { fork_of: handle } });
const state = await client.readResource({ uri: `hub://session/${handle}/banking` });
const forkState = await client.readResource({ uri: `hub://session/${fork.structuredContent.session}/banking` });
const rows = await client.readResource({ uri: `hub://session/${handle}/banking/accounts?limit=3` });
const listed = await client.listResources({ _meta: meta });
const templates = await client.listResourceTemplates();
const prompts = await client.listPrompts();
const prompt = await client.getPrompt({ name: "bank-transfer-002" });
let missingPrompt = "no error";
try {
  await client.getPrompt({ name: "no-such-task" });
} catch (err) {
  missingPrompt = String(err.message);
}
const closed = await client.callTool({ name: "hub__close_session", arguments: { session: handle } });
const closedAgain = await client.callTool({ name: "hub__close_session", arguments: { session: handle } });
const afterClose = await client.callTool({
  name: "banking__get_account",
  arguments: { account_id: "ACC-0001" },
  _meta: meta,
});
await client.close();

console.log(
  JSON.stringify({
    protocol: client.transport?.protocolVersion ?? null,
    handle,
    deposit_ok: !deposit.isError,
    fork_hash: fork.structuredContent.state_hash,
    state_hash: JSON.parse(state.contents[0].text).state_hash,
    fork_state_hash: JSON.parse(forkState.contents[0].text).state_hash,
    rows: JSON.parse(rows.contents[0].text).rows.length,
    resource_uris: listed.resources.map((r) => r.uri),
    templates: templates.resourceTemplates.map((t) => t.uriTemplate),
    prompts: prompts.prompts.map((p) => p.name),
    prompt_user: prompt.messages[0].content.text,
    prompt_system: prompt.description,
    prompt_tools: prompt._meta["hub/tools"].map((t) => t.function.name),
    missing_prompt: missingPrompt,
    closed: closed.structuredContent,
    closed_again_error: closedAgain.isError === true,
    after_close: afterClose.content[0].text,
  }),
);
