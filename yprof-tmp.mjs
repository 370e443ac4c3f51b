import { Parser } from "yaml";
const n = 10000;
const text = "[".repeat(n) + "1" + "]".repeat(n);
let t = performance.now(); const tokens = [...new Parser().parse(text)]; console.log("parse", performance.now() - t);
const text2 = "- ".repeat(n) + "1";
t = performance.now(); [...new Parser().parse(text2)]; console.log("parse seq", performance.now() - t);
const text3 = "{a: ".repeat(n) + "1" + "}".repeat(n);
t = performance.now(); [...new Parser().parse(text3)]; console.log("parse map", performance.now() - t);
