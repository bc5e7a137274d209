/**
 * The atomic save of one session (docs/scale.md's merge rules), as one Lua script so that two machines
 * saving the same session at once can never interleave:
 *
 * - `cancelled` only ever goes from false to true (a user's `q` is never lost);
 * - `confirmations` keeps the higher count (a limit is never reset by a race);
 * - grants are fields: `g:<id>` the grant, `u:<id>` its remaining uses. A new grant is added (HSETNX), a
 *   grant this machine removed (expired, spent) is deleted, and a use is a decrement (HINCRBY), so two
 *   machines each using a grant once leave it with two uses fewer — never one. A grant another machine
 *   already deleted is not brought back.
 *
 * KEYS[1] the session hash. ARGV: sessionId, cancelled ('1'|'0'), confirmations, ops JSON
 * `{add: [[id, json, uses|-1]], use: [[id, n]], del: [id]}`, the change channel, the key's TTL in ms (0: none).
 * Returns the hash after the save (HGETALL), so the caller knows what the store now holds.
 */
export const MERGE_SESSION_LUA = `
local key = KEYS[1]
local ops = cjson.decode(ARGV[4])
redis.call('HSET', key, 'version', '1', 'sessionId', ARGV[1])
if ARGV[2] == '1' or redis.call('HGET', key, 'cancelled') == '1' then
  redis.call('HSET', key, 'cancelled', '1')
else
  redis.call('HSET', key, 'cancelled', '0')
end
local stored = tonumber(redis.call('HGET', key, 'confirmations') or '0') or 0
local given = tonumber(ARGV[3]) or 0
if given > stored then stored = given end
redis.call('HSET', key, 'confirmations', tostring(stored))
for _, id in ipairs(ops.del) do
  redis.call('HDEL', key, 'g:' .. id, 'u:' .. id)
end
for _, p in ipairs(ops.add) do
  if redis.call('HSETNX', key, 'g:' .. p[1], p[2]) == 1 then
    if p[3] >= 0 then redis.call('HSET', key, 'u:' .. p[1], tostring(p[3])) end
  elseif p[3] >= 0 then
    -- Known to the store but not to this machine (its memory of the session was dropped): fewer uses win.
    local cur = tonumber(redis.call('HGET', key, 'u:' .. p[1]) or '')
    if cur == nil or p[3] < cur then
      if p[3] <= 0 then redis.call('HDEL', key, 'g:' .. p[1], 'u:' .. p[1])
      else redis.call('HSET', key, 'u:' .. p[1], tostring(p[3])) end
    end
  end
end
for _, p in ipairs(ops.use) do
  if redis.call('HEXISTS', key, 'u:' .. p[1]) == 1 then
    local left = redis.call('HINCRBY', key, 'u:' .. p[1], -p[2])
    if left <= 0 then redis.call('HDEL', key, 'g:' .. p[1], 'u:' .. p[1]) end
  end
end
local ttl = tonumber(ARGV[6]) or 0
if ttl > 0 then redis.call('PEXPIRE', key, ttl) end
redis.call('PUBLISH', ARGV[5], ARGV[1])
return redis.call('HGETALL', key)
`;
