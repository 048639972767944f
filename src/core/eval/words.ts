/**
 * Word problems: short stories written for this project, each a template whose numbers are drawn
 * per problem. The computation is kept as + - * text beside the story, so the answer is the value
 * of one expression and anything that knows the templates can read a story back into its numbers.
 */
import { parseExpression, evaluate } from './expr';
import type { Difficulty } from './problems';

export interface WordTemplate {
  id: string;
  difficulty: Difficulty;
  /** The story and question; {name} is a person, {a}…{d} are numbers. */
  text: string;
  /** The computation over the same placeholders. */
  expr: string;
  /** Inclusive range of each number. */
  ranges: Record<string, [number, number]>;
  /** Stories about things you count need a non-negative answer; balances and temperatures do not. */
  nonNegative?: boolean;
}

const NAMES = [
  'Ana',
  'Ben',
  'Chloe',
  'Dev',
  'Elif',
  'Femi',
  'Greta',
  'Hiro',
  'Ines',
  'Jonas',
  'Kemal',
  'Lena',
  'Mateo',
  'Nadia',
  'Omar',
  'Priya',
  'Rosa',
  'Sven',
  'Tariq',
  'Yuki',
];

export const WORD_TEMPLATES: readonly WordTemplate[] = [
  // easy: one operation on small numbers
  {
    id: 'marbles',
    difficulty: 'easy',
    text: '{name} has {a} marbles and finds {b} more in the garden. How many marbles does {name} have now?',
    expr: '{a} + {b}',
    ranges: { a: [3, 60], b: [2, 40] },
  },
  {
    id: 'shelf',
    difficulty: 'easy',
    text: 'A shelf holds {a} books and {b} of them are lent out. How many books are still on the shelf?',
    expr: '{a} - {b}',
    ranges: { a: [10, 90], b: [2, 60] },
    nonNegative: true,
  },
  {
    id: 'pencils',
    difficulty: 'easy',
    text: 'Each box holds {a} pencils. How many pencils are there in {b} boxes?',
    expr: '{a} * {b}',
    ranges: { a: [3, 24], b: [2, 12] },
  },
  {
    id: 'thermometer',
    difficulty: 'easy',
    text: 'The thermometer showed {a} degrees at noon and {b} degrees less at midnight. What did it show at midnight, in degrees?',
    expr: '{a} - {b}',
    ranges: { a: [2, 30], b: [3, 45] },
  },
  // medium: two operations
  {
    id: 'bakery',
    difficulty: 'medium',
    text: 'A bakery bakes {a} trays of {b} rolls each and sells {c} rolls before noon. How many rolls are left?',
    expr: '{a} * {b} - {c}',
    ranges: { a: [3, 15], b: [6, 24], c: [5, 150] },
    nonNegative: true,
  },
  {
    id: 'savings',
    difficulty: 'medium',
    text: '{name} puts away {a} dollars every week for {b} weeks, then spends {c} dollars on a bicycle. How many dollars does {name} have left?',
    expr: '{a} * {b} - {c}',
    ranges: { a: [5, 40], b: [3, 12], c: [10, 200] },
    nonNegative: true,
  },
  {
    id: 'train',
    difficulty: 'medium',
    text: 'A train leaves with {a} passengers. At the first station {b} get off and {c} get on. How many passengers are on the train now?',
    expr: '{a} - {b} + {c}',
    ranges: { a: [40, 300], b: [5, 90], c: [5, 90] },
    nonNegative: true,
  },
  {
    id: 'tulips',
    difficulty: 'medium',
    text: 'A garden has {a} rows of {b} tulips, and {c} more tulips grow along the fence. How many tulips are there in all?',
    expr: '{a} * {b} + {c}',
    ranges: { a: [3, 20], b: [4, 25], c: [2, 60] },
  },
  {
    id: 'dawn',
    difficulty: 'medium',
    text: 'At dawn it was {a} degrees. The temperature then fell by {b} degrees every hour for {c} hours. What was the temperature after that, in degrees?',
    expr: '{a} - {b} * {c}',
    ranges: { a: [0, 25], b: [2, 6], c: [2, 9] },
  },
  // hard: three operations, larger numbers
  {
    id: 'warehouse',
    difficulty: 'hard',
    text: 'A warehouse holds {a} crates with {b} cans in each. A lorry delivers {c} more crates with {d} cans in each. How many cans are in the warehouse now?',
    expr: '{a} * {b} + {c} * {d}',
    ranges: { a: [12, 250], b: [6, 48], c: [5, 90], d: [6, 36] },
  },
  {
    id: 'notebooks',
    difficulty: 'hard',
    text: 'A school orders {a} packs of {b} notebooks. It gives {c} notebooks to each of {d} classes. How many notebooks are left over?',
    expr: '{a} * {b} - {c} * {d}',
    ranges: { a: [20, 120], b: [5, 24], c: [10, 40], d: [3, 20] },
    nonNegative: true,
  },
  {
    id: 'wages',
    difficulty: 'hard',
    text: '{name} earns {a} dollars an hour and works {b} hours this month, then pays {c} dollars of rent and {d} dollars for food. How many dollars are left?',
    expr: '{a} * {b} - {c} - {d}',
    ranges: { a: [12, 60], b: [40, 180], c: [300, 1500], d: [100, 700] },
    nonNegative: true,
  },
  {
    id: 'cinema',
    difficulty: 'hard',
    text: 'A cinema has {a} rows of {b} seats. For the evening show {c} tickets are sold online and {d} at the door. How many seats stay empty?',
    expr: '{a} * {b} - {c} - {d}',
    ranges: { a: [10, 40], b: [12, 36], c: [20, 400], d: [5, 150] },
    nonNegative: true,
  },
  {
    id: 'account',
    difficulty: 'hard',
    text: 'An account holds {a} dollars. {b} payments of {c} dollars each go out, and a refund of {d} dollars comes in. What is the balance now, in dollars?',
    expr: '{a} - {b} * {c} + {d}',
    ranges: { a: [100, 2000], b: [3, 15], c: [25, 250], d: [10, 400] },
  },
];

export interface FilledTemplate {
  question: string;
  expression: string;
  answer: number;
}

const PLACEHOLDER = /\{(\w+)\}/g;

function substitute(text: string, values: Record<string, string | number>): string {
  return text.replace(PLACEHOLDER, (_, key: string) => String(values[key]));
}

/** One story with numbers drawn from `rand`; null when the numbers break the template's rule. */
export function fillTemplate(t: WordTemplate, rand: () => number): FilledTemplate | null {
  const values: Record<string, string | number> = { name: NAMES[Math.floor(rand() * NAMES.length)] };
  for (const [key, [lo, hi]] of Object.entries(t.ranges)) values[key] = lo + Math.floor(rand() * (hi - lo + 1));
  const expression = substitute(t.expr, values);
  const answer = evaluate(parseExpression(expression));
  if (t.nonNegative && answer < 0) return null;
  return { question: substitute(t.text, values), expression, answer };
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Each template as a pattern over its stories, with its placeholders in order of appearance. */
const READERS = WORD_TEMPLATES.map((t) => {
  const keys: string[] = [];
  let source = '';
  let last = 0;
  for (const m of t.text.matchAll(PLACEHOLDER)) {
    source += escape(t.text.slice(last, m.index));
    source += m[1] === 'name' ? '[A-Z][a-z]+' : '(\\d+)';
    if (m[1] !== 'name') keys.push(m[1]);
    last = m.index + m[0].length;
  }
  source += escape(t.text.slice(last));
  return { template: t, keys, re: new RegExp(source) };
});

/** Finds the story a text contains and reads it back: its template, expression and answer. */
export function readWordProblem(text: string): (FilledTemplate & { template: WordTemplate }) | null {
  for (const { template, keys, re } of READERS) {
    const m = re.exec(text);
    if (!m) continue;
    const values: Record<string, string> = {};
    keys.forEach((k, i) => (values[k] = m[i + 1]));
    const expression = substitute(template.expr, values);
    return { template, question: m[0], expression, answer: evaluate(parseExpression(expression)) };
  }
  return null;
}
