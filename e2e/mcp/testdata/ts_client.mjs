// The sign-in scenario through the official TypeScript MCP SDK's client
// (typescript_test.go runs it): it starts `bua mcp` over stdio, lists the
// tools, signs in on the fixture app, and prints one JSON line of what it
// saw. Usage: node ts_client.mjs BUA_BINARY BASE_URL [RECORD_FILE]; with
// RECORD_FILE the server runs with --record RECORD_FILE, and has written
// it once the client closed (close waits for the process to exit).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bua, base, record] = process.argv.slice(2);
const args = record ? ["mcp", "--record", record] : ["mcp"];
const transport = new StdioClientTransport({ command: bua, args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "bua-e2e-ts", version: "1.0.0" });
await client.connect(transport);

const text = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
const call = async (args) => {
  const res = await client.callTool({ name: "browser", arguments: args });
  if (res.isError) throw new Error(`${JSON.stringify(args)}: ${text(res)}`);
  return res;
};
const uid = (page, role, name) => {
  const line = page.split("\n").find((l) => l.startsWith("e") && l.includes(` ${role} ${JSON.stringify(name)}`));
  if (!line) throw new Error(`no ${role} ${name} in:\n${page}`);
  return line.split(" ")[0];
};

const { tools } = await client.listTools();
const out = { tools: tools.map((t) => t.name), schemaType: tools[0].inputSchema.type, actions: tools[0].inputSchema.properties.action.enum.length };

const nav = await call({ action: "navigate", url: `${base}/app/login.html` });
out.tabId = nav.structuredContent.tabId;
const login = text(await call({ action: "extract" }));
out.obstacle = login.includes("obstacle: auth_wall (high)");
await call({ action: "type", uid: uid(login, "textbox", "Email"), text: "grace@example.com" });
await call({ action: "type", uid: uid(login, "textbox", "Password"), text: "hopper" });
out.click = text(await call({ action: "click", uid: uid(login, "button", "Sign in") }));
out.dashboard = text(await call({ action: "extract" }));
const shot = await call({ action: "screenshot" });
out.image = shot.content.filter((c) => c.type === "image").map((c) => c.mimeType);
const bad = await client.callTool({ name: "browser", arguments: { action: "navigate", url: "ftp://x" } });
out.bad = { isError: bad.isError, field: bad.structuredContent?.error?.field };

await client.close();
console.log(JSON.stringify(out));
