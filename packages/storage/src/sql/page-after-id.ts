/**
 * The conditions and parameters of a keyset page of a project's rows in id order, after the
 * id given: one row more than the page is asked for, so the caller can tell if more follow.
 */
export function pageAfterId(projectId: string, page: { limit: number; afterId?: string }): { conditions: string[]; params: Record<string, unknown> } {
  const conditions = ['project_id = {projectId:String}'];
  const params: Record<string, unknown> = { projectId, limit: page.limit + 1 };
  if (page.afterId !== undefined) {
    conditions.push('id > {afterId:String}');
    params.afterId = page.afterId;
  }
  return { conditions, params };
}
