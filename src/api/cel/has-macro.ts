/**
 * `has()` over any selection, as cel-go's macro takes it: `has(self[0].matches)` (Gateway API's
 * route rules) tests a field of an indexed element. cel-js's macro accepts only a chain of field
 * selections that starts at a variable and refuses the rest at check time (`has() invalid
 * argument`); `widenHas` gives those calls a macro that evaluates the operand and tests the
 * selected field the way cel-js's own does. Calls cel-js already handles keep its macro.
 */
import { EvaluationError, type ASTNode } from "@marcbachmann/cel-js";

/** The evaluator and checker surfaces a macro is handed (cel-js's macro contract, untyped there). */
interface MacroEvaluator {
  run(node: ASTNode, context: unknown): unknown;
  debugType(value: unknown): { fieldLazy(value: unknown, field: string, node: ASTNode, evaluator: MacroEvaluator): unknown };
}
interface MacroChecker {
  check(node: ASTNode, context: unknown): unknown;
  getType(name: string): unknown;
}
interface MacroNode {
  setMeta(key: string, value: unknown): unknown;
}

function isNode(value: unknown): value is ASTNode {
  return value !== null && typeof value === "object" && "op" in value;
}

/** The selections of `has`'s argument, outermost first, then the operand they start from. */
function selectionChain(argument: ASTNode): ASTNode[] {
  const chain: ASTNode[] = [];
  let node: ASTNode = argument;
  while (node.op === "." || node.op === ".?") {
    chain.push(node);
    const operand = (node.args as readonly unknown[])[0];
    if (!isNode(operand)) break;
    node = operand;
  }
  chain.push(node);
  return chain;
}

function widened(chain: readonly ASTNode[]): unknown {
  return {
    args: [chain[0]],
    async: false,
    typeCheck(checker: MacroChecker, _macro: unknown, context: unknown): unknown {
      const operand = chain[chain.length - 1];
      if (operand !== undefined) checker.check(operand, context);
      return checker.getType("bool");
    },
    evaluate(evaluator: MacroEvaluator, _macro: unknown, context: unknown): boolean {
      let index = chain.length - 1;
      const operand = chain[index];
      if (operand === undefined) return false;
      let value = evaluator.run(operand, context);
      let optional = false;
      while (index-- > 0) {
        const node = chain[index];
        if (node === undefined) break;
        if (node.op === ".?") optional = true;
        const field = String((node.args as readonly unknown[])[1]);
        value = evaluator.debugType(value).fieldLazy(value, field, node, evaluator);
        if (value !== undefined) continue;
        // A missing field in the middle of the chain is an error (cel-go: no such key); the last one is the answer.
        if (optional || index === 0 || node.op !== ".") break;
        throw new EvaluationError(`No such key: ${field}`, node);
      }
      return value !== undefined;
    },
  };
}

/** Gives every `has()` call whose selection does not start at a variable the widened macro. */
export function widenHas(root: ASTNode): void {
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!isNode(value)) {
      if (value !== null && typeof value === "object") for (const item of Object.values(value)) visit(item);
      return;
    }
    const args = value.args as unknown;
    if (value.op === "call" && Array.isArray(args) && args[0] === "has" && Array.isArray(args[1]) && args[1].length === 1) {
      const argument: unknown = args[1][0];
      if (isNode(argument) && argument.op === ".") {
        const chain = selectionChain(argument);
        if (chain[chain.length - 1]?.op !== "id") (value as unknown as MacroNode).setMeta("macro", widened(chain));
      }
    }
    visit(args);
  };
  visit(root);
}
