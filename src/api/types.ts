/** Shapes exchanged over the wire, shared by the client and the server. */

/** The allowed values of a pet's status. */
export const PET_STATUSES = ["available", "pending", "sold"] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

/** One stock entry: `petId` is int64, so it is a bigint end to end. */
export interface InventoryItem {
  petId: bigint;
  quantity: number;
  status: PetStatus;
}

/**
 * One change of an entry's quantity, as `GET /inventory/{petId}/history` lists it: when (RFC
 * 3339 UTC), the quantities before (null for a seed) and after, the name of the key that made
 * it, the request's id and the reason given (`X-Change-Reason`).
 */
export interface InventoryChange {
  at: string;
  petId: bigint;
  previous: number | null;
  quantity: number;
  keyName: string | null;
  requestId: string | null;
  reason: string | null;
}

/** Body of `PATCH /inventory/{petId}`. */
export interface InventoryUpdate {
  quantity: number;
}

/** Body of every error response. */
export interface ApiErrorBody {
  code: string;
  message: string;
  status: number;
}

export interface Category {
  id: bigint;
  name: string;
}

export interface Tag {
  id: bigint;
  name: string;
}

/** A pet record, in the classic Swagger Petstore shape. */
export interface Pet {
  id: bigint;
  name: string;
  status: PetStatus;
  category?: Category;
  photoUrls: string[];
  tags: Tag[];
}

export const ORDER_STATUSES = ["placed", "approved", "delivered"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** A store order, in the classic Swagger Petstore shape. */
export interface Order {
  id: bigint;
  petId: bigint;
  quantity: number;
  shipDate: string;
  status: OrderStatus;
  complete: boolean;
}
