import type { NotificationEvent } from './event.js';

export type WebhookFormat = 'json' | 'slack' | 'discord' | 'custom';

/** What a `custom` template returns: a string is sent as is, anything else as JSON. */
export type TemplateResult = string | Record<string, unknown> | unknown[];
export type WebhookTemplate = (event: NotificationEvent) => TemplateResult;

export interface RenderedBody {
  body: string;
  contentType: string;
}

const TITLES: Record<NotificationEvent['event'], string> = {
  'security.violation': 'toolgate blocked a tool call',
  'approval.requested': 'toolgate is waiting for an approval',
};

// Slack reads `<!channel>`, `<@U123>` and links from `<…>`: escaping the three control characters keeps
// model-controlled text (a path, a reason) from pinging a channel or forging a link.
function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function summary(e: NotificationEvent): string {
  return `[${e.severity.toUpperCase()}] ${TITLES[e.event]}: ${e.tool} ${e.operation} ${e.path ?? '(no path)'} (${e.reason})`;
}

function slack(e: NotificationEvent): Record<string, unknown> {
  const field = (label: string, value: string | null) => ({
    type: 'mrkdwn',
    text: `*${label}*\n${slackEscape(clip(value ?? '-', 1900))}`,
  });
  return {
    text: slackEscape(clip(summary(e), 3000)),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: clip(`${TITLES[e.event]} (${e.severity})`, 150) } },
      {
        type: 'section',
        fields: [
          field('Agent', e.agent),
          field('User', e.user),
          field('Tool', e.tool),
          field('Operation', e.operation),
          field('Path', e.path),
          field('Code', e.code),
        ],
      },
      { type: 'section', text: { type: 'mrkdwn', text: `*Reason*\n${slackEscape(clip(e.reason, 2900))}` } },
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: slackEscape(`decision ${e.decisionId} · ${e.timestamp}`) }],
      },
    ],
  };
}

const DISCORD_COLORS: Record<NotificationEvent['severity'], number> = {
  critical: 0xb00020,
  high: 0xe65100,
  medium: 0xf9a825,
  low: 0x607d8b,
};

function discord(e: NotificationEvent): Record<string, unknown> {
  // Discord limits: content 2000, title 256, field value 1024. Code spans keep paths from rendering as markdown.
  const value = (text: string | null) => clip(text === null ? '-' : `\`${text.replace(/`/g, "'")}\``, 1024);
  return {
    content: clip(summary(e), 2000),
    // Model-controlled text must never ping @everyone or a role.
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title: clip(TITLES[e.event], 256),
        description: clip(e.reason, 4096),
        color: DISCORD_COLORS[e.severity],
        timestamp: e.timestamp,
        fields: [
          { name: 'Severity', value: e.severity, inline: true },
          { name: 'Agent', value: value(e.agent), inline: true },
          { name: 'User', value: value(e.user), inline: true },
          { name: 'Tool', value: value(e.tool), inline: true },
          { name: 'Operation', value: value(e.operation), inline: true },
          { name: 'Code', value: value(e.code), inline: true },
          { name: 'Path', value: value(e.path), inline: false },
        ],
        footer: { text: `decision ${e.decisionId}` },
      },
    ],
  };
}

/**
 * Renders an event for one target. Runs at send time (never on the decision path), so a throwing custom
 * template costs a dead letter, not a decision.
 */
export function renderBody(
  e: NotificationEvent,
  format: WebhookFormat,
  template?: WebhookTemplate,
): RenderedBody {
  switch (format) {
    case 'json':
      return { body: JSON.stringify(e), contentType: 'application/json' };
    case 'slack':
      return { body: JSON.stringify(slack(e)), contentType: 'application/json' };
    case 'discord':
      return { body: JSON.stringify(discord(e)), contentType: 'application/json' };
    case 'custom': {
      if (!template) throw new Error('format "custom" needs a template');
      const out = template(e);
      if (typeof out === 'string') return { body: out, contentType: 'text/plain; charset=utf-8' };
      const body = JSON.stringify(out);
      if (typeof body !== 'string') throw new Error('custom template returned a value that is not JSON');
      return { body, contentType: 'application/json' };
    }
  }
}

/** Plain-text rendering for e-mail. */
export function renderText(e: NotificationEvent): { subject: string; text: string } {
  const lines = [
    TITLES[e.event],
    '',
    `Severity:  ${e.severity}`,
    `Agent:     ${e.agent}`,
    `User:      ${e.user ?? '-'}`,
    `Tool:      ${e.tool}`,
    `Operation: ${e.operation}`,
    `Path:      ${e.path ?? '-'}`,
    `Reason:    ${e.reason}`,
    `Code:      ${e.code}`,
    `Time:      ${e.timestamp}`,
    `Decision:  ${e.decisionId}`,
  ];
  // Subjects are one line: a newline in a model-written path must not inject a header.
  const subject = clip(
    `[toolgate ${e.severity}] ${e.event === 'security.violation' ? 'blocked' : 'approval needed'}: ${e.tool} ${e.path ?? ''}`.replace(
      /[\r\n]+/g,
      ' ',
    ),
    200,
  );
  return { subject, text: lines.join('\n') };
}
