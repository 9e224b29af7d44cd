// The ranges of a 5-field cron schedule. The CRD's pattern checks the shape; this checks the values,
// so that a schedule the API server would refuse on the CronJob never gets that far.

interface Field {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
  /** The value of the first name: JAN is 1, SUN is 0. */
  readonly firstName?: number;
}

const FIELDS: readonly Field[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  {
    name: "month",
    min: 1,
    max: 12,
    names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"],
    firstName: 1,
  },
  { name: "day of week", min: 0, max: 6, names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"] },
];

function value(token: string, field: Field): number | undefined {
  if (/^\d+$/.test(token)) return Number(token);
  const index = field.names?.indexOf(token.toUpperCase()) ?? -1;
  return index >= 0 ? index + (field.firstName ?? 0) : undefined;
}

function invalidItem(item: string, field: Field): string | undefined {
  const [range = "", step] = item.split("/");
  if (step !== undefined && !(Number(step) >= 1))
    return `step "${step}" in the ${field.name} field must be >= 1`;
  if (range === "*" || range === "?") return undefined;
  const bounds = range.split("-").map((t) => value(t, field));
  for (const bound of bounds) {
    if (bound === undefined || bound < field.min || bound > field.max) {
      return `"${range}" is out of range for the ${field.name} field (${field.min}-${field.max})`;
    }
  }
  const [low = 0, high = low] = bounds as number[];
  return low > high ? `"${range}" is an empty range in the ${field.name} field` : undefined;
}

const verdicts = new Map<string, string | undefined>();
const VERDICTS_KEPT = 512;

/** Why the schedule is not a valid 5-field cron expression, or undefined. */
export function invalidCronSchedule(schedule: string): string | undefined {
  // A handful of schedules recur on every sync: check each once (a pure function, so the memo is invisible).
  if (verdicts.has(schedule)) return verdicts.get(schedule);
  const verdict = checkSchedule(schedule);
  if (verdicts.size >= VERDICTS_KEPT) verdicts.clear();
  verdicts.set(schedule, verdict);
  return verdict;
}

function checkSchedule(schedule: string): string | undefined {
  const parts = schedule.trim().split(/\s+/);
  if (parts.length !== 5) return "must have 5 fields: minute hour day-of-month month day-of-week";
  for (const [index, part] of parts.entries()) {
    const field = FIELDS[index] as Field;
    for (const item of part.split(",")) {
      const problem = invalidItem(item, field);
      if (problem) return problem;
    }
  }
  return undefined;
}
