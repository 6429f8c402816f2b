/**
 * Prints the answers of checks that run at once, each as soon as it and every one before it
 * are done: the output streams (a slow check holds back only the rows after it) and keeps the
 * same order on every run, so two reports compare line by line.
 */
export async function printInOrder<T>(
  answers: readonly Promise<T>[],
  print: (answer: T) => void,
): Promise<T[]> {
  const done: T[] = [];
  for (const answer of answers) {
    const value = await answer;
    print(value);
    done.push(value);
  }
  return done;
}
