import type { DeployStack } from './deployStack.js'
import { AGENT_KEYS, AWS_TEST_SECRET } from './deployStack.js'

/** What no log line, answer body or header may ever contain in a deploy stack: agent keys, the AWS secret, the Redis token. */
export const deployStackSecrets = (stack: DeployStack) => [
  AGENT_KEYS.alice,
  AGENT_KEYS.bob,
  AWS_TEST_SECRET,
  ...(stack.upstash ? [stack.upstash.token] : []),
]

/** Wraps a stack's `post` so every answer (body and headers) is kept in `seen`, for {@link findLeaks}. */
export function recordAnswers(stack: DeployStack, seen: string[]): DeployStack {
  const post = stack.post
  stack.post = async (...args) => {
    const answer = await post(...args)
    seen.push(JSON.stringify(answer.body), JSON.stringify([...answer.headers]))
    return answer
  }
  return stack
}

/** The texts (log lines, answers) that contain one of `secrets`. */
export const findLeaks = (texts: readonly string[], secrets: readonly string[]) =>
  texts.filter((text) => secrets.some((secret) => text.includes(secret)))
