/**
 * Milestones of the process's start-up, in milliseconds since the process began (performance's
 * time origin is the process start), with the CPU time the process used up to each: on a busy
 * machine the CPU figures say what start-up costs, the wall figures what it waited. The CLI prints
 * them once ready. Marks are only added during start-up (a bounded, small list).
 */
const marks: { readonly name: string; readonly at: number; readonly cpu: number }[] = [];

export function markStartup(name: string): void {
  if (marks.length >= 64) return;
  const usage = process.cpuUsage();
  marks.push({ name, at: performance.now(), cpu: (usage.user + usage.system) / 1000 });
}

/** `name +wall ms (cpu ms)` per milestone, in order, e.g. `node and modules 180 ms (cpu 150 ms), certificates +12 ms (cpu 9 ms), …`. */
export function startupBreakdown(): string {
  let previous = { at: 0, cpu: 0 };
  return marks
    .map((mark, index) => {
      const wall = Math.round(mark.at - previous.at);
      const cpu = Math.round(mark.cpu - previous.cpu);
      previous = mark;
      return `${mark.name} ${index === 0 ? "" : "+"}${wall} ms (cpu ${cpu} ms)`;
    })
    .join(", ");
}
