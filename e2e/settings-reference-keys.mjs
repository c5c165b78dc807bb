// Lists the settings keys of the reference Gemini CLI releases, for
// gemini-rs's unknown-key warnings (crates/core/src/config/reference_keys.txt).
//
//   node e2e/settings-reference-keys.mjs \
//     /work/ref/g061/node_modules/@google/gemini-cli/bundle/chunk-2YTYPKEZ.js \
//     /work/ref/g027/node_modules/@google/gemini-cli/dist/src/config/settingsSchema.js \
//     > crates/core/src/config/reference_keys.txt
//
// Each argument is a module of a release exporting `getSettingsSchema()`
// (0.61.0 ships it inside a bundle chunk, 0.27.4 as its own file). One key
// a line, dotted; ` *` after a key whose children are free (a map such as
// `mcpServers`, or an object without listed properties).
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

const keys = new Map();
function walk(props, prefix) {
  for (const [name, def] of Object.entries(props)) {
    const key = prefix ? `${prefix}.${name}` : name;
    const open = def.type === "object" && (!def.properties || !!def.additionalProperties);
    keys.set(key, (keys.get(key) ?? false) || open);
    if (def.properties) walk(def.properties, key);
  }
}
for (const file of process.argv.slice(2)) {
  const mod = await import(pathToFileURL(resolve(file)).href);
  walk(mod.getSettingsSchema(), "");
}
const lines = [...keys.entries()]
  .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  .map(([k, open]) => (open ? `${k} *` : k));
console.log(lines.join("\n"));
