/**
 * HCP's project team access levels, shared by the server (src/access/project-access.ts, which says what each
 * grants) and the console (src/web/projects/). Dependency-free.
 */
export const PROJECT_ACCESS_LEVELS = ['read', 'write', 'maintain', 'admin', 'custom'] as const;
export type ProjectAccessLevel = (typeof PROJECT_ACCESS_LEVELS)[number];

export function isProjectAccessLevel(value: unknown): value is ProjectAccessLevel {
  return typeof value === 'string' && (PROJECT_ACCESS_LEVELS as readonly string[]).includes(value);
}

/** The fixed levels (every level but `custom`), weakest first. */
export const FIXED_PROJECT_ACCESS_LEVELS = PROJECT_ACCESS_LEVELS.filter((level): level is Exclude<ProjectAccessLevel, 'custom'> => level !== 'custom');
