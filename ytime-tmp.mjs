import { parseDocument, Lexer, Parser, Composer } from "yaml";
for (const n of [1000, 2000, 4000, 8000]) {
  const text = "[".repeat(n) + "1" + "]".repeat(n);
  let t = performance.now();
  for (const _ of new Lexer().lex(text)); const lex = performance.now() - t;
  t = performance.now(); const tokens = [...new Parser().parse(text)]; const parse = performance.now() - t;
  t = performance.now(); const docs = [...new Composer().compose(tokens)]; const compose = performance.now() - t;
  t = performance.now(); docs[0].toJS(); const tojs = performance.now() - t;
  console.log(n, { lex: lex.toFixed(0), parse: parse.toFixed(0), compose: compose.toFixed(0), tojs: tojs.toFixed(0) });
}
