/** A task stage's name as the page titles it: "post_plan" → "Post-plan tasks" (the timeline's step labels). */
export function stageTitle(stage: string): string {
  const words = stage.replace(/_/g, '-');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)} tasks`;
}
