import { Parser, Lexer, Composer } from "yaml";
const n = Number(process.argv[2]); const what = process.argv[3];
const flow = what.startsWith("block") ? Array.from({length:n}, (_, i) => " ".repeat(i) + "k:").join("\n") + " 1" : "a: " + "[".repeat(n) + "1" + "]".repeat(n);
try {
if (what.endsWith("lex")) { let c=0; for (const t of new Lexer().lex(flow)) c++; console.log("lex ok", c); }
if (what.endsWith("parse")) { let c=0; for (const t of new Parser().parse(flow)) c++; console.log("parse ok", c); }
if (what === "json") { const arr = JSON.parse("[".repeat(n) + "]".repeat(n)); JSON.stringify(arr); structuredClone(arr); console.log("json ok"); }
} catch (e) { console.log(what, e.message.slice(0, 80)); }
