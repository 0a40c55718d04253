/** HCP Terraform's team name rule (letters, digits, `-`, `_`), also used for organization and run task names. */
export const NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
export const NAME_MAX_LENGTH = 255;

/** Returns why the name is invalid, or undefined when it is fine. */
export function nameProblem(name: string): string | undefined {
  if (name.length === 0) return 'name cannot be empty';
  if (name.length > NAME_MAX_LENGTH) return `name must be at most ${NAME_MAX_LENGTH} characters`;
  if (!NAME_PATTERN.test(name)) return 'name can only contain letters, numbers, - and _';
  return undefined;
}

/** The key names are unique on: comparison ignores case. */
export function nameKey(name: string): string {
  return name.toLowerCase();
}
