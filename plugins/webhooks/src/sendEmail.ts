import type { Transporter } from 'nodemailer';
import { createTransport } from 'nodemailer';
import type { CompiledEmail } from './compileOptions.js';
import type { AttemptResult } from './delivery.js';
import type { NotificationEvent } from './event.js';
import { renderText } from './formats.js';

export function createMailTransport(target: CompiledEmail, timeoutMs: number): Transporter {
  const c = target.config;
  const port = c.smtpPort ?? 587;
  return createTransport({
    host: c.smtpHost,
    port,
    secure: c.secure ?? port === 465,
    requireTLS: c.requireTLS ?? false,
    ...(c.smtpUser !== undefined ? { auth: { user: c.smtpUser, pass: c.smtpPass ?? '' } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
}

/**
 * Sends one event as a plain-text e-mail. SMTP says itself what is permanent: a 5xx reply (unknown
 * recipient, authentication refused) will not change on retry; 4xx replies and network errors may.
 */
export async function sendEmail(
  transport: Transporter,
  target: CompiledEmail,
  event: NotificationEvent,
  deliveryId: string,
): Promise<AttemptResult> {
  const { subject, text } = renderText(event);
  try {
    const info = (await transport.sendMail({
      from: target.config.from,
      to: [...target.config.to],
      subject,
      text,
      headers: { 'X-Toolgate-Delivery': deliveryId, 'X-Toolgate-Event': event.event },
    })) as { response?: string };
    return { ok: true, response: info.response ?? '' };
  } catch (error) {
    const code = (error as { responseCode?: number }).responseCode;
    const permanent = typeof code === 'number' && code >= 500 && code < 600;
    return {
      ok: false,
      retry: !permanent,
      ...(code ? { status: code } : {}),
      error: (error as Error).message,
    };
  }
}
