import { Type, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';

/**
 * Request-body schemas for JSON:API documents. Attributes are optional unless listed; unknown
 * attributes pass through (CONTRACT 2: ignored), known ones must have the right type (422).
 */
export function resourceBody<A extends TProperties>(
  type: string,
  attributes: TObject<A>,
  options: { attributesRequired?: boolean; relationships?: TSchema } = {},
) {
  const data: TProperties = {
    type: Type.Literal(type),
    attributes: options.attributesRequired === false ? Type.Optional(attributes) : attributes,
  };
  if (options.relationships) data.relationships = Type.Optional(options.relationships);
  return Type.Object({ data: Type.Object(data) });
}

export const OptionalString = (maxLength = 10_000) => Type.Optional(Type.String({ maxLength }));
export const NullableString = (maxLength = 10_000) => Type.Optional(Type.Union([Type.String({ maxLength }), Type.Null()]));

export const IdParam = (name: string) => Type.Object({ [name]: Type.String({ maxLength: 255 }) });

/** `{"data":[{"type":"users","id":"…"}]}` as the relationship endpoints take it. */
export function identifierListBody(type: string) {
  return Type.Object({
    data: Type.Array(Type.Object({ type: Type.Literal(type), id: Type.String({ minLength: 1, maxLength: 255 }) }), { maxItems: 500 }),
  });
}
