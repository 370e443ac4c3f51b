import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compile, type VariableSet } from "./environment.js";

const SET: VariableSet = { name: "library-test", variables: ["self"] };

async function run(expression: string, self: unknown = {}): Promise<unknown> {
  const compiled = compile(expression, SET);
  if (compiled.kind === "error") return `compile: ${compiled.message}`;
  const result = await compiled.program.evaluate({ self });
  return result.kind === "value" ? result.value : `error: ${result.message}`;
}

const TABLE: readonly (readonly [string, unknown])[] = [
  // macros and core semantics
  ["[1, 2, 3].all(x, x > 0)", true],
  ["[1, 2, 3].exists(x, x > 2)", true],
  ["[1, 2, 3].exists_one(x, x > 1)", false],
  ["[1, 2, 3].map(x, x * 2)", [2n, 4n, 6n]],
  ["[1, 2, 3].filter(x, x > 1)", [2n, 3n]],
  ["has(self.a)", false],
  ["9223372036854775807 + 1", "error: integer overflow: 9223372036854775808"],
  ["1u - 2u", "error: Unsigned integer overflow"],
  ["1 / 0", "error: division by zero"],
  ["false && (1 / 0 > 0)", false],
  ["self.missing", "error: no such key: missing"],
  // strings
  ["'hello'.charAt(1)", "e"],
  ["'a.b.c'.replace('.', '/')", "a/b/c"],
  ["'a.b.c'.replace('.', '/', 1)", "a/b.c"],
  ["'a-b-c'.split('-', 2)", ["a", "b-c"]],
  ["'ABC'.lowerAscii()", "abc"],
  ["'hello'.indexOf('l', 3)", 3n],
  // lists
  ["[1, 2, 3].isSorted()", true],
  ["[3, 1].isSorted()", false],
  ["[1, 2, 3].sum()", 6n],
  ["[1.5, 2.5].sum()", 4],
  ["['b', 'a'].min()", "a"],
  ["[4, 9, 2].max()", 9n],
  ["[1, 2, 1].lastIndexOf(1)", 2n],
  // regex
  ["'abc123def'.find('[0-9]+')", "123"],
  ["'a1b2c3'.findAll('[0-9]')", ["1", "2", "3"]],
  ["'a1b2c3'.findAll('[0-9]', 2)", ["1", "2"]],
  ["matches('v1.2.3', 'v1.[0-5]')", true],
  ["matches('v2.0', '^v1')", false],
  // RE2, as kube: its refusals with its own text, and its syntax JavaScript's engine lacks
  ["'x'.find('(a)\\\\1')", "error: error parsing regexp: invalid escape sequence: `\\1`"],
  ["'Https'.matches('(?i)^(HTTP|HTTPS)$')", true],
  ["matches('TCP', '(?i)^tcp$')", true],
  ["'ab'.find('(?i)B')", "b"],
  ["'éa'.matches('^\\\\pL+$')", true],
  ["'abc'.matches('\\\\Aabc\\\\z')", true],
  ["'x1'.matches('^[[:alpha:]][[:digit:]]$')", true],
  ["'a'.matches('(?=a)')", "error: error parsing regexp: invalid or unsupported Perl syntax: `(?=`"],
  // conversions cel-go declares beside cel-js's
  ["timestamp(timestamp('2024-05-01T00:00:00Z')) == timestamp('2024-05-01T00:00:00Z')", true],
  ["duration(duration('90s')) == duration('1m30s')", true],
  ["string(timestamp('2024-05-01T10:20:30Z'))", "2024-05-01T10:20:30Z"],
  ["int(timestamp('1970-01-01T00:01:40Z'))", 100n],
  // urls
  ["url('https://example.com:8443/a%20b?x=1&x=2').getHost()", "example.com:8443"],
  ["url('https://example.com:8443/p').getPort()", "8443"],
  ["url('https://[::1]:80/').getHostname()", "::1"],
  ["url('/just/a/path').getScheme()", ""],
  ["isURL('not a url')", false],
  // quantity
  ["quantity('1Gi').isGreaterThan(quantity('1000Mi'))", true],
  ["quantity('500m').add(1).compareTo(quantity('1500m'))", 0n],
  ["quantity('1.5').isInteger()", false],
  ["quantity('2k').asInteger()", 2000n],
  ["quantity('1Gi') == quantity('1024Mi')", true],
  ["quantity('-1').sign()", -1n],
  ["isQuantity('1Gb')", false],
  // ip / cidr
  ["ip('10.0.0.1').family()", 4n],
  ["ip('fe80::1').isLinkLocalUnicast()", true],
  ["ip('127.0.0.1').isLoopback()", true],
  ["ip('8.8.8.8').isGlobalUnicast()", true],
  ["isIP('::ffff:1.2.3.4')", false],
  ["isIP('01.2.3.4')", false],
  ["cidr('10.0.0.0/8').containsIP('10.1.2.3')", true],
  ["cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", true],
  ["cidr('10.0.0.0/16').containsCIDR('10.0.0.0/8')", false],
  ["string(cidr('10.1.2.3/8').masked())", "10.0.0.0/8"],
  ["cidr('2001:db8::/32').prefixLength()", 32n],
  ["string(ip('2001:db8:0:0:0:0:0:1'))", "2001:db8::1"],
  // sets
  ["sets.contains([1, 2, 3], [3, 1])", true],
  ["sets.contains([1, 2], [4])", false],
  ["sets.contains([1, 2], [])", true],
  ["sets.contains([1], [1.0])", true],
  ["sets.equivalent([1, 2, 2], [2, 1])", true],
  ["sets.equivalent([1, 2], [1])", false],
  ["sets.intersects(['a', 'b'], ['c', 'b'])", true],
  ["sets.intersects([[1], [2]], [[2]])", true],
  ["sets.intersects(['a'], [])", false],
  // format
  ["format.dns1123Label().validate('my-name').hasValue()", false],
  ["format.dns1123Label().validate('My_Name').value().size() > 0", true],
  ["format.dns1123Label().validate('My_Name').value()[0].startsWith('a lowercase RFC 1123 label must consist of')", true],
  ["format.dns1123Subdomain().validate('a.b-c').hasValue()", false],
  ["format.dns1035Label().validate('1abc').hasValue()", true],
  ["format.dns1123LabelPrefix().validate('my-').hasValue()", false],
  ["format.dns1123Label().validate('my-').hasValue()", true],
  ["format.qualifiedName().validate('example.com/my-key').hasValue()", false],
  ["format.labelValue().validate('a b').hasValue()", true],
  ["format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()", false],
  ["format.byte().validate('aGVsbG8=').hasValue()", false],
  ["format.date().validate('2024-02-30').hasValue()", true],
  ["format.datetime().validate('2024-02-03T04:05:06Z').hasValue()", false],
  ["format.uri().validate('https://example.com/a').hasValue()", false],
  ["format.named('dns1123Label').hasValue()", true],
  ["format.named('dns1123Label').value().validate('ok').hasValue()", false],
  ["format.named('nope').hasValue()", false],
];

describe("CEL environment libraries", () => {
  for (const [expression, expected] of TABLE) {
    it(expression, async () => {
      assert.deepEqual(await run(expression), expected);
    });
  }

  it("reports compile errors with kube's ERROR: <input>:line:column prefix", () => {
    const compiled = compile("self.a +", SET);
    assert.equal(compiled.kind, "error");
    assert.match(compiled.kind === "error" ? compiled.message : "", /^ERROR: <input>:1:\d+: /);
    const unknown = compile("nope == 1", SET);
    assert.match(unknown.kind === "error" ? unknown.message : "", /^ERROR: <input>:1:1: .*nope/);
  });

  it("caches compiled programs by variable set and text", () => {
    const first = compile("self.x == 1", SET);
    const second = compile("self.x == 1", SET);
    assert.ok(first.kind === "ok" && second.kind === "ok");
    assert.equal(first.program, second.program);
  });
});
