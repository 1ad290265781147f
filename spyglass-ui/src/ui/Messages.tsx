/** The pages' one-line messages: what went wrong (read out at once) and what just happened. */

/** A problem to show, or nothing when there is none. */
export function Problem({ text }: { text: string | null | undefined }) {
  return text ? (
    <p class="error" role="alert">
      {text}
    </p>
  ) : null;
}

/** A notice to show (a feature that is off, what a batch did), or nothing when there is none. */
export function Notice({ text }: { text: string | null | undefined }) {
  return text ? (
    <p class="notice" role="status">
      {text}
    </p>
  ) : null;
}
