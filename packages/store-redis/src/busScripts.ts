/**
 * Lua scripts of the approval bus. Each is one atomic step, so two approvers racing (two consoles, two
 * tabs, a bot and a person) can never both win, and nothing is answered after its deadline by Redis's
 * clock (the asking machine also denies at its own deadline, whatever arrives later).
 */

/**
 * Raise a question once. KEYS: question key, stream. ARGV: deadline, owner token, TTL ms, message JSON,
 * events channel, raised-event JSON, id, stream max length. Returns 1 raised, 2 already raised by this
 * owner (a republish after a reconnect), -1 the id belongs to another asker.
 */
export const PUBLISH_LUA = `
local value = ARGV[1] .. '|' .. ARGV[2]
local cur = redis.call('GET', KEYS[1])
if cur then
  if cur == value then return 2 end
  return -1
end
redis.call('SET', KEYS[1], value, 'PX', ARGV[3])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[8], '*', 'id', ARGV[7], 'message', ARGV[4])
redis.call('PUBLISH', ARGV[5], ARGV[6])
return 1
`;

/**
 * Answer a question: the first answer wins. KEYS: question key, answer key. ARGV: settlement JSON, events
 * channel, settled-event JSON, TTL ms. Returns 1 this answer won, 0 no such question or already settled,
 * -1 its deadline has passed.
 */
export const RESPOND_LUA = `
local q = redis.call('GET', KEYS[1])
if not q then return 0 end
local deadline = tonumber(string.match(q, '^(%d+)|'))
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if deadline == nil or now >= deadline then return -1 end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[4]) then
  redis.call('PUBLISH', ARGV[2], ARGV[3])
  return 1
end
return 0
`;

/**
 * The asker stopped waiting (timeout or withdrawn): settle the question so no later answer wins. KEYS:
 * answer key. ARGV: settlement JSON, events channel, settled-event JSON, TTL ms. Returns 1 or 0.
 */
export const WITHDRAW_LUA = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[4]) then
  redis.call('PUBLISH', ARGV[2], ARGV[3])
  return 1
end
return 0
`;
