/** The JSON:API shapes the console reads from /api/v2 (only the fields it uses are typed strictly). */
export interface ResourceIdentifier {
  id: string;
  type: string;
}

export interface Resource<A = Record<string, unknown>> extends ResourceIdentifier {
  attributes: A;
  relationships?: Record<string, { data?: ResourceIdentifier | ResourceIdentifier[] | null; links?: Record<string, string> }>;
  links?: Record<string, string>;
}

export interface PaginationMeta {
  'current-page': number;
  'total-pages': number;
  'total-count': number;
  'next-page': number | null;
  'prev-page': number | null;
}

export interface Document<A = Record<string, unknown>> {
  data: Resource<A>;
  included?: Resource[];
}

export interface ListDocument<A = Record<string, unknown>> {
  data: Resource<A>[];
  included?: Resource[];
  meta?: { pagination?: PaginationMeta };
}

/** One entry of a JSON:API `errors` array; `source.pointer` names the field the server refused. */
export interface ApiErrorObject {
  status?: string;
  title?: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string };
}
