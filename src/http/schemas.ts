import { Type, type TLiteral, type TObject, type TOptional, type TSchema, type TString } from '@sinclair/typebox';

type BodyAttributes<A extends TSchema, Required extends boolean> = Required extends false ? TOptional<A> : A;
type BodyRelationships<R> = R extends TSchema ? { relationships: TOptional<R> } : unknown;
type BodyData<A extends TSchema, Required extends boolean, R> = { type: TLiteral<string>; attributes: BodyAttributes<A, Required> } & BodyRelationships<R>;

/**
 * Request-body schemas for JSON:API documents. Attributes are optional unless listed; unknown
 * attributes pass through (and are ignored), known ones must have the right type (422).
 * The return type spells out what the built schema validates, so handlers get a typed `request.body`.
 */
export function resourceBody<A extends TObject, Required extends boolean = true, R extends TSchema | undefined = undefined>(
  type: string,
  attributes: A,
  options: { attributesRequired?: Required; relationships?: R } = {},
): TObject<{ data: TObject<BodyData<A, Required, R>> }> {
  const data: Record<string, TSchema> = {
    type: Type.Literal(type),
    attributes: options.attributesRequired === false ? Type.Optional(attributes) : attributes,
  };
  if (options.relationships) data.relationships = Type.Optional(options.relationships);
  // TypeBox cannot infer the shape of properties chosen at run time; the signature above states it.
  return Type.Object({ data: Type.Object(data) }) as unknown as TObject<{ data: TObject<BodyData<A, Required, R>> }>;
}

export const OptionalString = (maxLength = 10_000) => Type.Optional(Type.String({ maxLength }));
export const NullableString = (maxLength = 10_000) => Type.Optional(Type.Union([Type.String({ maxLength }), Type.Null()]));

/** A path parameter schema; typed by its name, which a computed key alone would lose. */
export const IdParam = <N extends string>(name: N) =>
  Type.Object({ [name]: Type.String({ maxLength: 255 }) } as Record<N, TString>);

/** `{"data":[{"type":"users","id":"…"}]}` as the relationship endpoints take it. */
export function identifierListBody(type: string) {
  return Type.Object({
    data: Type.Array(Type.Object({ type: Type.Literal(type), id: Type.String({ minLength: 1, maxLength: 255 }) }), { maxItems: 500 }),
  });
}

/**
 * The query string of a JSON:API endpoint (`page[size]`, `include`, `filter[…]`, `q`): a flat map of strings,
 * as parseQueryString builds it, so validating it never refuses anything; it gives handlers its static type.
 */
export const JsonApiQuery = Type.Record(Type.String(), Type.String());
