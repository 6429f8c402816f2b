/**
 * "Your plan": the plan, conversions left today and when they reset (GET /api/usage), and the
 * API key. The key is kept in localStorage only when "Remember this key on this device" is
 * checked, else in sessionStorage (gone with the tab); it is sent in Authorization only.
 */
import { type ApiError, apiAddress, getJson, setApiKey, type Usage } from './api.js';
import { alertUser, byId } from './dom.js';
import { describeError, limitMessage, localResetTime } from './messages.js';

// Per API: a page opened with another ?api= (a crafted link) finds no key to send there.
const STORAGE_KEY = `fileconv.apiKey ${apiAddress}`;

function storages(): Storage[] {
  // Storage can be off (privacy settings): the key then lives in memory only.
  const found: Storage[] = [];
  for (const pick of [() => localStorage, () => sessionStorage]) {
    try {
      found.push(pick());
    } catch {}
  }
  return found;
}

function storedKey(): { key: string; remembered: boolean } {
  const [local, session] = [localStorage, sessionStorage].map((storage) => {
    try {
      return storage.getItem(STORAGE_KEY) ?? '';
    } catch {
      return '';
    }
  });
  return local ? { key: local, remembered: true } : { key: session ?? '', remembered: false };
}

function storeKey(key: string, remember: boolean): void {
  for (const storage of storages()) {
    try {
      storage.removeItem(STORAGE_KEY);
      if (key && (storage === localStorage) === remember) storage.setItem(STORAGE_KEY, key);
    } catch {}
  }
}

export async function refreshUsage(): Promise<void> {
  const label = byId('plan-label');
  const left = byId('plan-left');
  const reset = byId('plan-reset');
  try {
    const usage = await getJson<Usage>('usage');
    label.textContent = `Plan: ${usage.plan.label}`;
    const conversions = usage.quotas.conversions;
    if (conversions?.limit != null && conversions.remaining != null) {
      left.textContent = `${conversions.remaining} of ${conversions.limit} conversions left today`;
      reset.textContent = conversions.resetAt
        ? `Resets at ${localResetTime(new Date(conversions.resetAt))}`
        : '';
    } else if (usage.plan.conversionsPerDay != null) {
      // A server without usage counters enforces no quota: say the plan's allowance, not a count.
      left.textContent = `${usage.plan.conversionsPerDay} conversions a day on this plan (not counted by this server)`;
      reset.textContent = '';
    } else {
      left.textContent = 'No daily conversion limit';
      reset.textContent = '';
    }
  } catch (error) {
    const { message, code } = describeError(error);
    label.textContent = code === 'UNAUTHORIZED' ? 'This API key was not accepted.' : 'Plan unknown';
    left.textContent = message;
    reset.textContent = '';
    if (code === 'UNAUTHORIZED') alertUser(`${message} Check the key, or choose "Forget key".`);
  }
}

/** A 429 from any request: one alert saying when the limit resets; the plan is re-read. */
export function reportLimit(error: ApiError): void {
  alertUser(limitMessage(error));
  void refreshUsage();
}

export function initPlan(): void {
  const input = byId<HTMLInputElement>('api-key');
  const remember = byId<HTMLInputElement>('remember-key');
  const { key, remembered } = storedKey();
  setApiKey(key);
  input.value = key;
  remember.checked = remembered;
  byId('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const value = input.value.trim();
    setApiKey(value);
    storeKey(value, remember.checked);
    alertUser('');
    void refreshUsage();
  });
  byId('forget-key').addEventListener('click', () => {
    input.value = '';
    remember.checked = false;
    setApiKey('');
    storeKey('', false);
    alertUser('');
    void refreshUsage();
  });
  void refreshUsage();
}
