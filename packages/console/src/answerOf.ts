import type { DeskAnswer } from '@toolgate/approvals';

const SCOPES = new Set(['once', 'directory', 'subtree']);

/**
 * An answer from a form (`decision=allow|deny`, `scope`, `reason`) or the JSON API (`approved`, `grant`,
 * `reason`, `by`). Anything unexpected is an error message — never a default that could approve.
 */
export function answerOf(
  body: Record<string, unknown>,
  by: string,
  byFromBody: boolean,
): DeskAnswer | string {
  let approved: boolean;
  if (typeof body.approved === 'boolean') approved = body.approved;
  else if (body.decision === 'allow') approved = true;
  else if (body.decision === 'deny') approved = false;
  else return 'say whether to allow: "decision" allow|deny (form) or "approved" true|false (JSON)';
  const scope = body.grant ?? body.scope ?? 'once';
  if (typeof scope !== 'string' || !SCOPES.has(scope)) return 'scope must be once, subtree or directory';
  const reason = body.reason ?? '';
  if (typeof reason !== 'string' || reason.length > 500)
    return 'reason must be text of at most 500 characters';
  let who = by;
  if (byFromBody && body.by !== undefined) {
    if (typeof body.by !== 'string' || body.by === '' || body.by.length > 200)
      return 'by must be a short name';
    who = body.by;
  }
  const answer: DeskAnswer = { approved, by: who };
  if (approved) answer.grant = scope as DeskAnswer['grant'] & string;
  if (reason.trim() !== '') answer.reason = reason.trim();
  return answer;
}
