/**
 * SQL composed from pieces that carry their own values (the Slonik pattern, ADR 0025). A
 * module that owns a table writes the fragment over it (`sql` with its values inside); a
 * statement embeds fragments of other modules without knowing their text, and the
 * statement numbers every placeholder itself. So no module exports SQL text, and none
 * agrees with another on what `$4` means.
 *
 * A hot statement is defined once with named slots (`defineStatement`): its text is built
 * once, at definition, and a call only lines its arguments up with the placeholders. A
 * slot named at several places is bound once, so the text reads like hand-written SQL
 * (`$1` for the partner everywhere) and stays fixed, as named prepared statements need.
 */
export class SqlFragment {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}

/** A placeholder filled when the statement runs. */
class Slot {
  constructor(readonly name: string) {}
}

/** A fragment: `${value}` becomes a placeholder, `${fragment}` is embedded with its own values, `${slot}` a named argument. */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): SqlFragment {
  return new SqlFragment([...strings], values);
}

/** A statement's fixed text, and how a call's arguments become its bound values. */
export interface Statement<Name extends string> {
  readonly text: string;
  bind(args: Readonly<Record<Name, unknown>>): unknown[];
}

/** A value a statement binds: a fixed one (captured at definition), or a slot. */
type Bound = { slot: string } | { value: unknown };

/**
 * Builds the statement once from `build`, which receives one slot per name to place in
 * its fragments (and in the fragments it asks other modules for).
 */
export function defineStatement<Name extends string>(names: readonly Name[], build: (slots: Record<Name, unknown>) => SqlFragment): Statement<Name> {
  const slots = Object.fromEntries(names.map((name) => [name, new Slot(name)])) as Record<Name, unknown>;
  const bound: Bound[] = [];
  const numbers = new Map<Slot, number>();
  const placeholder = (value: unknown): string => {
    if (!(value instanceof Slot)) return `$${bound.push({ value })}`;
    let number = numbers.get(value);
    if (number === undefined) numbers.set(value, (number = bound.push({ slot: value.name })));
    return `$${number}`;
  };
  const render = (piece: SqlFragment): string =>
    piece.strings.reduce((text, string, i) => {
      if (i === 0) return string;
      const value = piece.values[i - 1];
      return text + (value instanceof SqlFragment ? render(value) : placeholder(value)) + string;
    }, '');
  const text = render(build(slots));
  return {
    text,
    bind: (args) => bound.map((entry) => ('slot' in entry ? args[entry.slot as Name] : entry.value)),
  };
}
